"""``Done`` (a lock held until done): waiters in other threads pass once it is finished,
each callback runs once, a failure is raised to every waiter; as a threading event did."""

from __future__ import annotations

import threading

import pytest

from tamis.store.sqlite import Done


def test_waiters_pass_once_finished_and_callbacks_run_once() -> None:
    done = Done()
    called: list[str] = []
    done.add_done_callback(lambda: called.append("before"))
    passed: list[object] = []
    waiters = [threading.Thread(target=lambda: (done.wait(), passed.append(done.result)))
               for _ in range(3)]
    for waiter in waiters:
        waiter.start()
    waiters[0].join(timeout=0.2)
    assert passed == [] and called == []  # not finished: every waiter waits
    done.finish(7)
    for waiter in waiters:
        waiter.join(timeout=10)
    assert passed == [7, 7, 7]
    done.add_done_callback(lambda: called.append("after"))  # already done: run at once
    done.finish(8)  # a second finish runs no callback again
    assert called == ["before", "after"]
    done.wait()  # passes again, at once


def test_a_failure_is_raised_to_each_waiter() -> None:
    done = Done()
    done.finish(failure=OSError("disk"))
    for _ in range(2):
        with pytest.raises(OSError, match="disk"):
            done.wait()
