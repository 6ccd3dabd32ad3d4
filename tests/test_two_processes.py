"""Jobs shared with a forked child: same results, in order, and errors from either side."""

from __future__ import annotations

import os

import pytest

from site_gen.model.errors import InputError
from site_gen.two_processes import MIN_ITEMS, map_in_two


def test_results_come_back_in_order_and_half_from_a_child():
    items = list(range(3 * MIN_ITEMS + 1))
    results = map_in_two(lambda item: (item * item, os.getpid()), items)
    assert [square for square, _ in results] == [item * item for item in items]
    pids = {pid for _, pid in results}
    assert len(pids) == 2 and os.getpid() in pids
    assert {pid for _, pid in results[0::2]} == {os.getpid()}


def test_few_items_stay_in_this_process():
    assert map_in_two(lambda item: os.getpid(), list(range(MIN_ITEMS - 1))) == [os.getpid()] * (MIN_ITEMS - 1)


def test_an_input_error_in_the_child_arrives_whole(tmp_path):
    def job(item):
        if item == 3:  # an odd position: the child's
            raise InputError("bad graph", tmp_path / "f.yaml", 7)
        return item
    with pytest.raises(InputError) as caught:
        map_in_two(job, list(range(MIN_ITEMS)))
    assert str(caught.value) == f"{tmp_path / 'f.yaml'}:7: bad graph"


def test_an_error_in_this_process_ends_the_child(tmp_path):
    marker = tmp_path / "child-finished"

    def job(item):
        if item == 0:
            raise ValueError("parent side")
        if item == MIN_ITEMS - 1:
            import time
            time.sleep(5)
            marker.write_text("yes")
        return item
    with pytest.raises(ValueError, match="parent side"):
        map_in_two(job, list(range(MIN_ITEMS)))
    assert not marker.exists()


def test_a_child_that_dies_is_reported():
    def job(item):
        if item % 2:
            os._exit(3)
        return item
    with pytest.raises(RuntimeError, match="ended without an answer"):
        map_in_two(job, list(range(MIN_ITEMS)))
