//! The simulated runtime's clock: the wall clock for the server binary, a virtual clock
//! that only moves when told for in-process use (tests and benches never sleep).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

/// Where the simulated runtime's `now` comes from. Clones share the same time.
#[derive(Debug, Clone)]
pub enum Clock {
    /// The system clock.
    Wall,
    /// A clock that moves only with [`Clock::advance`] and [`Clock::set`].
    Virtual(Arc<Mutex<jiff::Timestamp>>),
}

impl Clock {
    /// A virtual clock starting at `start`.
    #[must_use]
    pub fn virtual_at(start: jiff::Timestamp) -> Self {
        Self::Virtual(Arc::new(Mutex::new(start)))
    }

    /// The time now.
    #[must_use]
    pub fn now(&self) -> jiff::Timestamp {
        match self {
            Self::Wall => wall_now(),
            Self::Virtual(t) => *t.lock().unwrap_or_else(PoisonError::into_inner),
        }
    }

    /// Moves a virtual clock forward by `by` (the wall clock moves on its own: nothing
    /// happens). Returns the new time.
    pub fn advance(&self, by: Duration) -> jiff::Timestamp {
        match self {
            Self::Wall => wall_now(),
            Self::Virtual(t) => {
                let mut t = t.lock().unwrap_or_else(PoisonError::into_inner);
                let span = jiff::SignedDuration::try_from(by).unwrap_or(jiff::SignedDuration::MAX);
                *t = t.checked_add(span).unwrap_or(*t);
                *t
            }
        }
    }

    /// Waits until the clock reads `until` or later: a real sleep on the wall clock; on a
    /// virtual clock, polls (every millisecond of real time) until whoever drives it has
    /// moved it there.
    pub async fn sleep_until(&self, until: jiff::Timestamp) {
        loop {
            let now = self.now();
            if now >= until {
                return;
            }
            let wait = match self {
                Self::Wall => {
                    let left = until.duration_since(now);
                    Duration::try_from(left).unwrap_or(Duration::from_millis(1))
                }
                Self::Virtual(_) => Duration::from_millis(1),
            };
            tokio::time::sleep(wait).await;
        }
    }

    /// [`Clock::sleep_until`] `by` from now.
    pub async fn sleep(&self, by: Duration) {
        let span = jiff::SignedDuration::try_from(by).unwrap_or(jiff::SignedDuration::MAX);
        let now = self.now();
        self.sleep_until(now.checked_add(span).unwrap_or(now)).await;
    }

    /// Sets a virtual clock to `to` if that is later (a clock never goes back).
    pub fn set(&self, to: jiff::Timestamp) {
        if let Self::Virtual(t) = self {
            let mut t = t.lock().unwrap_or_else(PoisonError::into_inner);
            *t = (*t).max(to);
        }
    }
}

/// The system clock as a timestamp (the epoch if the system clock is before it).
fn wall_now() -> jiff::Timestamp {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    jiff::Timestamp::from_nanosecond(i128::try_from(since.as_nanos()).unwrap_or(0))
        .unwrap_or(jiff::Timestamp::UNIX_EPOCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_virtual_clock_moves_only_when_told() {
        let start = jiff::Timestamp::from_second(1_750_000_000).unwrap();
        let clock = Clock::virtual_at(start);
        let shared = clock.clone();
        assert_eq!(clock.now(), start);
        shared.advance(Duration::from_secs(5));
        assert_eq!(clock.now().as_second(), 1_750_000_005);
        clock.set(start);
        assert_eq!(clock.now().as_second(), 1_750_000_005);
    }
}
