"""scale_out.py's schedule arithmetic: the order's makespan and the ideal one it is printed beside."""

from __future__ import annotations

import itertools
import random

import pytest
import scale_out


def _brute_force(durations: list[float], workers: int) -> float:
    best = float("inf")
    for assignment in itertools.product(range(workers), repeat=len(durations)):
        loads = [0.0] * workers
        for seconds, w in zip(durations, assignment):
            loads[w] += seconds
        best = min(best, max(loads))
    return best


def test_list_makespan_hands_each_episode_to_the_first_free_worker():
    # The long one last starts when a worker frees up at 1 s; first, it sets the pace alone.
    assert scale_out.list_makespan([1, 1, 4], 2) == 5
    assert scale_out.list_makespan([4, 1, 1], 2) == 4
    assert scale_out.list_makespan([3, 3, 3], 1) == 9
    assert scale_out.list_makespan([], 4) == 0


@pytest.mark.parametrize("seed", range(6))
def test_best_makespan_is_the_optimum(seed):
    rng = random.Random(seed)
    durations = [round(rng.uniform(1, 20), 1) for _ in range(7)]
    workers = rng.choice([2, 3])
    assert scale_out.best_makespan(durations, workers) == pytest.approx(
        _brute_force(durations, workers)
    )


def test_best_makespan_beats_longest_first_where_lpt_is_not_optimal():
    # LPT puts 3,3,2,2,2 on two workers as 3+2+2 / 3+2 = 7; the optimum is 3+3 / 2+2+2 = 6.
    assert scale_out.list_makespan([3, 3, 2, 2, 2], 2) == 7
    assert scale_out.best_makespan([3, 3, 2, 2, 2], 2) == 6
    assert scale_out.best_makespan([5.0], 8) == 5.0
    assert scale_out.best_makespan([], 8) == 0.0
