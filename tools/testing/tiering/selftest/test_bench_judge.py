# SPDX-License-Identifier: GPL-2.0
"""Harness self-test: how make bench judges a damon_tier cell's settled top
node.  The free share must lie within 0.5 pp of the free target, or of the
watermark floor where the kernel keeps more free than the target."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import bench_matrix  # noqa: E402


def cell(used_bp, floor_bp, target_free_bp=50):
    """A cell meeting every goal but, maybe, the settled band."""
    return {"mech": "damon_tier", "workload": "noflush", "unreachable": False,
            "cpu_pct": 0.5, "intact": True, "per_hot": 1.9,
            "A": {"reach_s": 10, "held": True}, "B": None,
            "used_mean_bp": used_bp, "floor_bp": floor_bp,
            "target_free_bp": target_free_bp}


def misses_used(*args, **kw):
    return "used" in bench_matrix.judge(cell(*args, **kw))


def test_floor_below_target_judges_the_target():
    assert not misses_used(9900, 47)
    assert not misses_used(10000, 47)
    assert misses_used(9899, 47)


def test_floor_above_target_judges_the_floor():
    # 0.67% floor: up to 1.17% free.
    assert not misses_used(9883, 67)
    assert misses_used(9882, 67)
    # 1.18% floor: 0.68-1.68% free.
    assert not misses_used(9832, 118)
    assert misses_used(9831, 118)


def test_band_has_no_step():
    # Just below and above 1%, the most free allowed moves with the floor.
    assert not misses_used(9852, 99)
    assert misses_used(9850, 99)
    assert not misses_used(9850, 101)
    assert misses_used(9848, 101)


def test_admin_target_is_the_aim():
    # target_free_bp 200: 99.0% used keeps too little free.
    assert misses_used(9900, 47, target_free_bp=200)
    assert not misses_used(9800, 47, target_free_bp=200)
    assert not misses_used(9850, 47, target_free_bp=200)
    assert misses_used(9851, 47, target_free_bp=200)
    assert misses_used(9749, 47, target_free_bp=200)


def test_full_node_meets_the_default_goal():
    # 99.0-100% used meets the default goal whatever the floor did.
    assert not misses_used(9950, 118)
    assert not misses_used(9900, 160)


def test_missing_figure_misses():
    assert misses_used(None, 47)
