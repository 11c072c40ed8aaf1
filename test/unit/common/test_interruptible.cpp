// CancelPoller: polls after its budget of work, throws Cancelled once the
// callback reports a cancel, and costs nothing without a callback.
#include <gtest/gtest.h>

#include "common/interruptible.h"

namespace gbdt {

TEST(CancelPoller, PollsOncePerBudget) {
  int polls = 0;
  CancelFn fn = [&] { ++polls; return false; };
  CancelPoller p(fn, 100);
  for (int i = 0; i < 1000; ++i) p.tick();
  EXPECT_EQ(polls, 10);
  p.tick(250);  // a big step counts as its size
  EXPECT_EQ(polls, 11);
}

TEST(CancelPoller, ThrowsWhenTheCallbackSaysCancel) {
  bool cancel = false;
  CancelFn fn = [&] { return cancel; };
  CancelPoller p(fn, 10);
  for (int i = 0; i < 100; ++i) p.tick();
  cancel = true;
  int done = 0;
  EXPECT_THROW(
      {
        for (;; ++done) p.tick();
      },
      Cancelled);
  EXPECT_LE(done, 10);
}

TEST(CancelPoller, NoCallbackNeverThrows) {
  CancelFn none;
  CancelPoller p(none, 1);
  for (int i = 0; i < 1000; ++i) p.tick();
  p.poll_now();
  SUCCEED();
}

}  // namespace gbdt
