//! The threads the pod workers run on.
//!
//! The kubelet runs each pod worker as a goroutine (`pod_workers.go`); Go's runtime runs
//! goroutines on a few threads and hands a thread's other goroutines to a new one when a
//! goroutine blocks in a system call. The agent's pod workers block too (a CRI call, a
//! hook, a stop's grace period), so they run the same way: on a few threads
//! ([`Pool::new`]: twice the cores, at least 4), plus one more thread for each job that
//! has run longer than [`STALLED`] while others wait, so that one pod's slow stop, hook
//! or probe never holds up another pod's sync for more than that. A thread beyond the
//! first few ends once it has had nothing to do for [`IDLE_EXIT`].
//!
//! A thread of its own for every pod costs its stack, its allocator heap and its page
//! faults: 1,000 pods started paid for 1,000 threads, more than their syncs.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::sync::lock;

/// How long a job may run before the pool counts its thread as blocked and gives the
/// waiting jobs another thread.
pub(crate) const STALLED: Duration = Duration::from_millis(20);

/// How long a thread beyond the pool's first few waits for a job before it ends.
pub(crate) const IDLE_EXIT: Duration = Duration::from_secs(10);

/// One job: a pod worker carrying out what its mailbox holds.
pub(crate) type Job = Box<dyn FnOnce() + Send>;

/// A pool of threads that grows past its size while jobs are blocked.
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = lock(&self.shared.state);
        f.debug_struct("Pool")
            .field("threads", &state.threads)
            .field("idle", &state.idle)
            .field("queued", &state.queue.len())
            .finish()
    }
}

struct Shared {
    /// Threads that run jobs while none is blocked.
    size: usize,
    state: Mutex<State>,
    /// A job was queued, or the pool closed.
    work: Condvar,
    /// A job is waiting with every thread busy, or the pool closed (the supervisor).
    supervise: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    threads: usize,
    idle: usize,
    /// When each busy thread's job started, by thread number.
    running: Vec<(usize, Instant)>,
    next_thread: usize,
    supervised: bool,
    closed: bool,
}

impl State {
    /// Threads whose job has run for [`STALLED`] or longer at `now`.
    fn stalled(&self, now: Instant) -> usize {
        self.running
            .iter()
            .filter(|(_, since)| now.saturating_duration_since(*since) >= STALLED)
            .count()
    }
}

impl Pool {
    /// A pool of twice the machine's cores, at least 4 threads (started as jobs come).
    pub(crate) fn new() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Self::with_size(cores.saturating_mul(2).max(4))
    }

    /// A pool of `size` threads (at least 1) while no job is blocked.
    pub(crate) fn with_size(size: usize) -> Self {
        Self {
            shared: Arc::new(Shared {
                size: size.max(1),
                state: Mutex::new(State::default()),
                work: Condvar::new(),
                supervise: Condvar::new(),
            }),
        }
    }

    /// Runs `job` on one of the pool's threads, as soon as one is free.
    pub(crate) fn submit(&self, job: Job) {
        let mut state = lock(&self.shared.state);
        state.queue.push_back(job);
        if state.idle > 0 {
            drop(state);
            self.shared.work.notify_one();
            return;
        }
        if state.threads < self.shared.size {
            spawn(&self.shared, &mut state);
        } else if !state.supervised {
            state.supervised = true;
            let shared = Arc::clone(&self.shared);
            let started = std::thread::Builder::new()
                .name("pod-worker-supervisor".into())
                .spawn(move || supervise(&shared));
            if let Err(e) = started {
                state.supervised = false;
                tracing::warn!("cannot start the pod workers' supervisor: {e}");
            }
        } else {
            self.shared.supervise.notify_one();
        }
    }
}

impl Drop for Pool {
    /// Closes the pool: each thread ends after the job it is running; queued jobs are
    /// dropped. Nobody waits for a blocked job.
    fn drop(&mut self) {
        let mut state = lock(&self.shared.state);
        state.closed = true;
        state.queue.clear();
        drop(state);
        self.shared.work.notify_all();
        self.shared.supervise.notify_all();
    }
}

/// Starts one more thread (counted in `state`); a failure is logged, and the job waits
/// for a thread that is there or for the supervisor's next try.
fn spawn(shared: &Arc<Shared>, state: &mut State) {
    let number = state.next_thread;
    let pool = Arc::clone(shared);
    let started = std::thread::Builder::new()
        .name("pod-worker".into())
        .spawn(move || run(&pool, number));
    match started {
        Ok(_) => {
            state.threads += 1;
            state.next_thread += 1;
        }
        Err(e) => tracing::warn!("cannot start a pod worker thread: {e}"),
    }
}

/// A thread's loop: the queue's jobs, one at a time; a thread beyond the pool's size
/// ends after [`IDLE_EXIT`] without a job.
fn run(shared: &Shared, number: usize) {
    let mut state = lock(&shared.state);
    loop {
        if state.closed {
            break;
        }
        if let Some(job) = state.queue.pop_front() {
            state.running.push((number, Instant::now()));
            drop(state);
            // A job that panics ends; its thread and the pool's counts go on (the
            // worker's own round catches its panics first, so this is a last resort).
            if std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).is_err() {
                tracing::error!("a pod worker's job panicked; its thread goes on");
            }
            state = lock(&shared.state);
            state.running.retain(|(n, _)| *n != number);
            continue;
        }
        state.idle += 1;
        let (next, timeout) = shared
            .work
            .wait_timeout(state, IDLE_EXIT)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        state = next;
        state.idle -= 1;
        if timeout.timed_out() && state.queue.is_empty() && state.threads > shared.size {
            break;
        }
    }
    state.threads -= 1;
}

/// The supervisor (Go's `sysmon`): while jobs wait and every thread is busy, it checks
/// every half [`STALLED`] and starts a thread for each one whose job has run longer.
fn supervise(shared: &Arc<Shared>) {
    let mut state = lock(&shared.state);
    loop {
        if state.closed {
            return;
        }
        if state.queue.is_empty() || state.idle > 0 {
            state = shared
                .supervise
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            continue;
        }
        let working = state.threads.saturating_sub(state.stalled(Instant::now()));
        if working < shared.size {
            spawn(shared, &mut state);
        }
        state = shared
            .supervise
            .wait_timeout(state, STALLED / 2)
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::channel;

    #[test]
    fn a_panicking_job_leaves_the_thread_and_the_counts_as_they_were() {
        let pool = Pool::with_size(1);
        pool.submit(Box::new(|| panic!("a job's bug")));
        let (tx, rx) = channel();
        pool.submit(Box::new(move || {
            let _ = tx.send(());
        }));
        // The second job ran on the thread the first one panicked on.
        assert!(rx.recv_timeout(Duration::from_secs(5)).is_ok());
        let deadline = Instant::now() + Duration::from_secs(5);
        while !lock(&pool.shared.state).running.is_empty() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(1));
        }
        // Nothing is counted as running (a thread that died in the job would be forever),
        // and the threads counted are at most the supervisor's one extra.
        let state = lock(&pool.shared.state);
        assert!(state.running.is_empty(), "{:?}", state.running);
        assert!((1..=2).contains(&state.threads), "{}", state.threads);
    }

    #[test]
    fn every_job_runs() {
        let pool = Pool::with_size(2);
        let (tx, rx) = channel();
        for i in 0..100 {
            let tx = tx.clone();
            pool.submit(Box::new(move || tx.send(i).unwrap_or(())));
        }
        drop(tx);
        let mut got: Vec<i32> = rx.iter().take(100).collect();
        got.sort_unstable();
        assert_eq!(got, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn a_blocked_job_does_not_hold_up_the_others() {
        // One thread; its first job blocks until the last job has run.
        let pool = Pool::with_size(1);
        let (release, blocked) = channel::<()>();
        let (done, finished) = channel();
        pool.submit(Box::new(move || {
            let _ = blocked.recv_timeout(Duration::from_secs(30));
        }));
        for i in 0..3 {
            let done = done.clone();
            pool.submit(Box::new(move || done.send(i).unwrap_or(())));
        }
        let started = Instant::now();
        let got: Vec<i32> = finished.iter().take(3).collect();
        assert_eq!(got, vec![0, 1, 2]);
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "the jobs behind a blocked one waited {:?}",
            started.elapsed()
        );
        release.send(()).unwrap_or(());
    }
}
