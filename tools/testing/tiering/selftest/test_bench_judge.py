# SPDX-License-Identifier: GPL-2.0
"""Harness self-test: how make bench judges a damon_tier cell's settled top
node.  The free share must lie within 0.5 pp of the floor (the kernel's
reserve) plus the free target, or of the free target itself."""
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


def test_band_around_floor_plus_target():
    # 0.47% floor + 0.5%: 0.47-1.47% free (and 0-1% free: 99.0-100% used).
    assert not misses_used(9853, 47)
    assert misses_used(9852, 47)
    assert not misses_used(10000, 47)
    # 1.18% floor: 1.18-2.18% free, or 99.0-100% used.
    assert not misses_used(9782, 118)
    assert misses_used(9781, 118)
    assert misses_used(9890, 118)
    assert not misses_used(9900, 118)


def test_band_has_no_step():
    # Just below and above 1%, the most free allowed moves with the floor.
    assert not misses_used(9801, 99)
    assert misses_used(9800, 99)
    assert not misses_used(9799, 101)
    assert misses_used(9798, 101)


def test_admin_target_is_the_aim():
    # target_free_bp 200 above a 0.47% floor: 1.97-2.97% free, or 1.5-2.5%.
    assert misses_used(9900, 47, target_free_bp=200)
    assert not misses_used(9703, 47, target_free_bp=200)
    assert misses_used(9702, 47, target_free_bp=200)
    assert not misses_used(9850, 47, target_free_bp=200)
    assert misses_used(9851, 47, target_free_bp=200)


def test_full_node_meets_the_default_goal():
    # 99.0-100% used meets the default goal whatever the floor did.
    assert not misses_used(9950, 118)
    assert not misses_used(9900, 160)


def test_missing_figure_misses():
    assert misses_used(None, 47)


def run_with(migrated, compact):
    """A 2tier run whose hot set (1000 pages) all came up, with @migrated
    pages migrated in all and @compact of them by compaction (absent: an
    older result, None: the trace lost events)."""
    last = {"t": 90, "set": "A", "residency": 1.0, "used_bp": 9900,
            "floor_bp": 47, "cpu_s": 0.5, "migrated": migrated, "nb_migrated": 0}
    if compact != "absent":
        last["compact_migrated"] = compact
    first = dict(last, t=1, residency=0.0, cpu_s=0.0, migrated=0)
    res = {"cell": {"mech": "damon_tier", "workload": "noflush", "hot_mb": 4,
                    "run": 0},
           "hot_mb": 4, "hot_pages": 1000, "top": 0, "hot_node": 1,
           "samples": [first, last], "hot_intact": True, "cold_intact": True}
    return bench_matrix.figures(res, "2tier")


def test_bytes_count_moves_between_nodes():
    # 2100 migrations, 200 of them compaction's: 1.9 between nodes.
    f = run_with(2100, 200)
    assert f["per_hot"] == 1.9 and f["per_hot_all"] == 2.1
    assert "bytes" not in bench_matrix.judge(f)
    assert bench_matrix.per_hot_cell(f) == "1.90 (2.10)"
    # More than one byte down per byte up between nodes misses.
    assert "bytes" in bench_matrix.judge(run_with(2300, 200))


def test_bytes_without_a_trace_count_everything():
    for compact in (None, "absent"):
        f = run_with(2100, compact)
        assert f["per_hot"] == 2.1
        assert "bytes" in bench_matrix.judge(f)
    assert bench_matrix.per_hot_cell(run_with(2100, None)) == \
        "2.10 (compaction not traced)"
