//! Time, injected: the executor and the in-process ledgers never read the system clock
//! directly, so tests and the simulator run on virtual time.
//!
//! - [`SystemClock`] (feature `tokio`): wall-clock time and tokio's timer. Under
//!   `#[tokio::test(start_paused = true)]` it follows tokio's paused clock.
//! - [`VirtualClock`]: a discrete-event clock with its own single-threaded driver
//!   ([`VirtualClock::block_on`]): when every task waits, time jumps to the next deadline.
//!   No threads, no sleeps, fully deterministic.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context as TaskContext, Poll, Waker};
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Milliseconds since the Unix epoch (or since the start of a virtual clock).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Timestamp(pub u64);

impl Timestamp {
    /// `self + d`, saturating.
    pub fn after(self, d: Duration) -> Timestamp {
        Timestamp(
            self.0
                .saturating_add(u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
        )
    }

    /// Time from `earlier` to `self`, zero if `earlier` is later.
    pub fn since(self, earlier: Timestamp) -> Duration {
        Duration::from_millis(self.0.saturating_sub(earlier.0))
    }
}

/// A future that completes at a deadline.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send + 'static>>;

/// A source of time and timers.
pub trait Clock: Send + Sync + 'static {
    /// The current time.
    fn now(&self) -> Timestamp;

    /// A future that completes once [`Clock::now`] has reached `deadline`.
    fn sleep_until(&self, deadline: Timestamp) -> Sleep;
}

/// Wall-clock time with tokio's timer.
#[cfg(feature = "tokio")]
#[derive(Debug, Clone)]
pub struct SystemClock {
    epoch_ms: u64,
    start: tokio::time::Instant,
}

#[cfg(feature = "tokio")]
impl SystemClock {
    /// A clock reading the system time now and advancing with tokio's clock (so it stays
    /// consistent with `tokio::time::pause`).
    pub fn new() -> Self {
        let epoch_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        SystemClock {
            epoch_ms,
            start: tokio::time::Instant::now(),
        }
    }
}

#[cfg(feature = "tokio")]
impl Default for SystemClock {
    fn default() -> Self {
        SystemClock::new()
    }
}

#[cfg(feature = "tokio")]
impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp(self.epoch_ms).after(self.start.elapsed())
    }

    fn sleep_until(&self, deadline: Timestamp) -> Sleep {
        let wait = deadline.since(self.now());
        Box::pin(tokio::time::sleep(wait))
    }
}

#[derive(Debug, Default)]
struct VirtualState {
    now: u64,
    seq: u64,
    timers: BTreeMap<(u64, u64), Option<Waker>>,
}

/// A deterministic discrete-event clock.
///
/// Time only moves when [`VirtualClock::advance`] is called or when
/// [`VirtualClock::block_on`] finds every task waiting on a timer, in which case it jumps to
/// the earliest deadline.
#[derive(Debug, Clone, Default)]
pub struct VirtualClock {
    state: Arc<Mutex<VirtualState>>,
}

impl VirtualClock {
    /// A clock at time zero.
    pub fn new() -> Self {
        VirtualClock::default()
    }

    /// A clock starting at `start`.
    pub fn starting_at(start: Timestamp) -> Self {
        let clock = VirtualClock::new();
        clock.lock().now = start.0;
        clock
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VirtualState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The current virtual time (also available through [`Clock::now`]).
    pub fn now(&self) -> Timestamp {
        Timestamp(self.lock().now)
    }

    /// Move time forward by `d`, waking every timer that is now due.
    pub fn advance(&self, d: Duration) {
        let target = Timestamp(self.lock().now).after(d);
        self.advance_to(target);
    }

    /// Move time forward to `t` (never backwards), waking every timer that is now due.
    pub fn advance_to(&self, t: Timestamp) {
        let wakers: Vec<Waker> = {
            let mut s = self.lock();
            s.now = s.now.max(t.0);
            let now = s.now;
            let due: Vec<(u64, u64)> = s
                .timers
                .range(..=(now, u64::MAX))
                .map(|(k, _)| *k)
                .collect();
            due.into_iter()
                .filter_map(|k| s.timers.remove(&k).flatten())
                .collect()
        };
        wakers.into_iter().for_each(Waker::wake);
    }

    /// The earliest pending deadline, if any.
    pub fn next_deadline(&self) -> Option<Timestamp> {
        self.lock().timers.keys().next().map(|(t, _)| Timestamp(*t))
    }

    /// Run `future` to completion on this thread, jumping virtual time to the next deadline
    /// whenever it waits. Returns `None` if it waits on something that is not a timer of
    /// this clock (it could never finish).
    pub fn block_on<F: Future>(&self, future: F) -> Option<F::Output> {
        let mut future = std::pin::pin!(future);
        let waker = Waker::noop();
        let mut cx = TaskContext::from_waker(waker);
        loop {
            if let Poll::Ready(out) = future.as_mut().poll(&mut cx) {
                return Some(out);
            }
            let next = self.next_deadline()?;
            self.advance_to(next);
        }
    }
}

impl Clock for VirtualClock {
    fn now(&self) -> Timestamp {
        VirtualClock::now(self)
    }

    fn sleep_until(&self, deadline: Timestamp) -> Sleep {
        Box::pin(VirtualSleep {
            clock: self.clone(),
            deadline: deadline.0,
            slot: None,
        })
    }
}

struct VirtualSleep {
    clock: VirtualClock,
    deadline: u64,
    slot: Option<(u64, u64)>,
}

impl Future for VirtualSleep {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        let mut s = self.clock.lock();
        if s.now >= self.deadline {
            if let Some(slot) = self.slot {
                s.timers.remove(&slot);
            }
            return Poll::Ready(());
        }
        let slot = match self.slot {
            Some(slot) => slot,
            None => {
                s.seq += 1;
                (self.deadline, s.seq)
            }
        };
        s.timers.insert(slot, Some(cx.waker().clone()));
        drop(s);
        self.slot = Some(slot);
        Poll::Pending
    }
}

impl Drop for VirtualSleep {
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            self.clock.lock().timers.remove(&slot);
        }
    }
}

/// Race `op` against `deadline`, polling `op` first so a ready result always wins over a
/// timer that is due at the same instant. `None` means the deadline passed first.
pub(crate) async fn with_deadline<F: Future>(
    clock: &dyn Clock,
    deadline: Option<Timestamp>,
    op: F,
) -> Option<F::Output> {
    let Some(deadline) = deadline else {
        return Some(op.await);
    };
    let mut op = std::pin::pin!(op);
    // The timer is created only if the attempt does not finish on its first poll: a tool
    // that answers at once costs no timer registration.
    let mut sleep: Option<Sleep> = None;
    std::future::poll_fn(move |cx| {
        if let Poll::Ready(out) = op.as_mut().poll(cx) {
            return Poll::Ready(Some(out));
        }
        let sleep = sleep.get_or_insert_with(|| clock.sleep_until(deadline));
        match sleep.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn virtual_time_jumps_to_the_next_deadline() {
        let clock = VirtualClock::new();
        let c = clock.clone();
        let out = clock.block_on(async move {
            c.sleep_until(Timestamp(500)).await;
            let a = c.now();
            c.sleep_until(Timestamp(200)).await; // already past
            (a, c.now())
        });
        assert_eq!(out, Some((Timestamp(500), Timestamp(500))));
    }

    #[test]
    fn deadline_race_prefers_a_ready_result() {
        let clock = VirtualClock::new();
        let c = clock.clone();
        let out = clock.block_on(async move {
            let slow = {
                let c = c.clone();
                async move {
                    c.sleep_until(Timestamp(2_000)).await;
                    "done"
                }
            };
            let timed_out = with_deadline(&c, Some(Timestamp(1_000)), slow).await;
            let fast = with_deadline(&c, Some(Timestamp(1_000)), async { "ready" }).await;
            (timed_out, fast, c.now())
        });
        assert_eq!(out, Some((None, Some("ready"), Timestamp(1_000))));
        assert_eq!(clock.next_deadline(), None, "the losing timer is cancelled");
    }

    #[test]
    fn a_future_waiting_on_nothing_is_reported() {
        let clock = VirtualClock::new();
        assert_eq!(clock.block_on(std::future::pending::<()>()), None);
    }
}
