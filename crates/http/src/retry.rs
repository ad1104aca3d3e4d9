//! [`RetryPolicy`]: when a failed request is sent again, and after how
//! long, honouring the server's `Retry-After`.

use std::fmt;
use std::ops::RangeInclusive;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::client::Response;
use crate::error::Error;
use crate::retry_after::parse_retry_after;

/// Waits for a pause; [`std::thread::sleep`] unless a test injects another.
type Sleeper = Arc<dyn Fn(Duration) + Send + Sync>;
/// The current time, for `Retry-After` HTTP dates; [`SystemTime::now`]
/// unless a test injects another.
type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;
/// A test on a response, for retry rules that look past the status.
type ResponseTest = Arc<dyn Fn(&Response) -> bool + Send + Sync>;

/// The pause before a retry when the server gave no `Retry-After`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backoff {
    /// The same pause before every retry.
    Constant(Duration),
    /// `first` before the first retry, doubled before each next one, never
    /// more than `max`.
    Exponential {
        /// The first pause.
        first: Duration,
        /// The longest pause.
        max: Duration,
    },
}

impl Backoff {
    /// The pause before retry number `retry + 1` (`retry` retries done).
    #[must_use]
    pub fn pause(&self, retry: u32) -> Duration {
        match *self {
            Backoff::Constant(pause) => pause,
            Backoff::Exponential { first, max } => {
                first.saturating_mul(1 << retry.min(16)).min(max)
            }
        }
    }
}

/// When a status listed in a [`RetryPolicy`] is retried.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryWhen {
    /// Always: after the server's `Retry-After`, or the backoff without one.
    Always,
    /// Only when the response has a `Retry-After`. A 429 without one is
    /// how a spend limit looks at the Anthropic API: retrying cannot help.
    WithRetryAfter,
}

/// What a [`RetryPolicy`] does with a `Retry-After` longer than its
/// [`max_retry_after`](RetryPolicy::max_retry_after).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LongRetryAfter {
    /// Stop and return the response: waiting that long is the caller's
    /// decision.
    GiveUp,
    /// Wait the longest allowed time, then retry.
    WaitLongest,
}

/// When and after how long a request is sent again.
///
/// A response is retried when its status matches a rule of
/// [`statuses`](RetryPolicy::statuses) (or the
/// [`retry_if`](RetryPolicy::retry_if) test holds); a request that got no
/// response when [`retry_transport_errors`](RetryPolicy::retry_transport_errors)
/// is on and the error is a transport error or a timeout. The pause is the
/// response's `Retry-After` (delta-seconds, fractions allowed, or an HTTP
/// date read against the [`clock`](RetryPolicy::clock)), else the
/// [`Backoff`]. At most `max_retries` retries are made; then, or when a
/// failure is not retryable, the last outcome is returned as it is.
///
/// The defaults ([`RetryPolicy::new`]): 429 and 5xx retried always,
/// transport errors retried, exponential backoff from 500 ms to 30 s, and a
/// `Retry-After` over 30 s waited as 30 s.
///
/// ```
/// use std::time::Duration;
/// use memdir_http::{Backoff, LongRetryAfter, RetryPolicy, RetryWhen};
///
/// // Fail fast on a long or missing Retry-After of a 429; retry 5xx
/// // after a short pause; never retry a request that got no answer.
/// let policy = RetryPolicy::new(1)
///     .backoff(Backoff::Constant(Duration::from_millis(200)))
///     .statuses(&[(429..=429, RetryWhen::WithRetryAfter), (500..=599, RetryWhen::Always)])
///     .max_retry_after(Duration::from_secs(5), LongRetryAfter::GiveUp)
///     .retry_transport_errors(false);
/// assert_eq!(policy.max_retries(), 1);
/// ```
#[derive(Clone)]
pub struct RetryPolicy {
    max_retries: u32,
    backoff: Backoff,
    statuses: Vec<(RangeInclusive<u16>, RetryWhen)>,
    retry_if: Option<ResponseTest>,
    transport_errors: bool,
    max_retry_after: Duration,
    long_retry_after: LongRetryAfter,
    sleeper: Sleeper,
    clock: Clock,
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_retries", &self.max_retries)
            .field("backoff", &self.backoff)
            .field("statuses", &self.statuses)
            .field("retry_if", &self.retry_if.is_some())
            .field("transport_errors", &self.transport_errors)
            .field("max_retry_after", &self.max_retry_after)
            .field("long_retry_after", &self.long_retry_after)
            .finish_non_exhaustive()
    }
}

impl RetryPolicy {
    /// A policy of at most `max_retries` retries, with the defaults above.
    #[must_use]
    pub fn new(max_retries: u32) -> Self {
        RetryPolicy {
            max_retries,
            backoff: Backoff::Exponential {
                first: Duration::from_millis(500),
                max: Duration::from_secs(30),
            },
            statuses: vec![
                (429..=429, RetryWhen::Always),
                (500..=599, RetryWhen::Always),
            ],
            retry_if: None,
            transport_errors: true,
            max_retry_after: Duration::from_secs(30),
            long_retry_after: LongRetryAfter::WaitLongest,
            sleeper: Arc::new(std::thread::sleep),
            clock: Arc::new(SystemTime::now),
        }
    }

    /// Sets the pause used when a response has no `Retry-After`, and
    /// before retrying a transport error.
    #[must_use]
    pub fn backoff(mut self, backoff: Backoff) -> Self {
        self.backoff = backoff;
        self
    }

    /// Replaces the status rules: a status in a range is retried as its
    /// [`RetryWhen`] says; the first matching range counts.
    #[must_use]
    pub fn statuses(mut self, rules: &[(RangeInclusive<u16>, RetryWhen)]) -> Self {
        self.statuses = rules.to_vec();
        self
    }

    /// Also retries, as [`RetryWhen::Always`], a response no status rule
    /// retries but `test` accepts (an error body that says "overloaded"
    /// under an unusual status, say).
    #[must_use]
    pub fn retry_if(mut self, test: impl Fn(&Response) -> bool + Send + Sync + 'static) -> Self {
        self.retry_if = Some(Arc::new(test));
        self
    }

    /// Whether a request that got no response ([`Error::is_transient`]) is
    /// retried, after the backoff.
    #[must_use]
    pub fn retry_transport_errors(mut self, retry: bool) -> Self {
        self.transport_errors = retry;
        self
    }

    /// Sets the longest `Retry-After` waited for, and what a longer one
    /// does.
    #[must_use]
    pub fn max_retry_after(mut self, longest: Duration, longer: LongRetryAfter) -> Self {
        self.max_retry_after = longest;
        self.long_retry_after = longer;
        self
    }

    /// Replaces how pauses are waited, for tests that must not wait.
    #[must_use]
    pub fn sleeper(mut self, sleeper: impl Fn(Duration) + Send + Sync + 'static) -> Self {
        self.sleeper = Arc::new(sleeper);
        self
    }

    /// Replaces the clock `Retry-After` dates are read against.
    #[must_use]
    pub fn clock(mut self, clock: impl Fn() -> SystemTime + Send + Sync + 'static) -> Self {
        self.clock = Arc::new(clock);
        self
    }

    /// The most retries made.
    #[must_use]
    pub fn max_retries(&self) -> u32 {
        self.max_retries
    }

    /// The wait a response's `Retry-After` asks for, read against the
    /// policy's clock; `None` without a readable one. A date in the past is
    /// a wait of zero.
    #[must_use]
    pub fn retry_after(&self, response: &Response) -> Option<Duration> {
        parse_retry_after(response.header("retry-after")?, (self.clock)())
    }

    /// The pause before another attempt after `outcome`, when `retries`
    /// retries are done; `None` when the outcome is final.
    #[must_use]
    pub fn pause(&self, retries: u32, outcome: &Result<Response, Error>) -> Option<Duration> {
        if retries >= self.max_retries {
            return None;
        }
        match outcome {
            Err(error) => {
                (self.transport_errors && error.is_transient()).then(|| self.backoff.pause(retries))
            }
            Ok(response) => self.response_pause(retries, response),
        }
    }

    fn response_pause(&self, retries: u32, response: &Response) -> Option<Duration> {
        let rule = self
            .statuses
            .iter()
            .find(|(range, _)| range.contains(&response.status))
            .map(|(_, when)| *when)
            .or_else(|| {
                self.retry_if
                    .as_ref()
                    .filter(|test| test(response))
                    .map(|_| RetryWhen::Always)
            })?;
        match self.retry_after(response) {
            None if rule == RetryWhen::WithRetryAfter => None,
            None => Some(self.backoff.pause(retries)),
            Some(wait) if wait <= self.max_retry_after => Some(wait),
            Some(_) => match self.long_retry_after {
                LongRetryAfter::GiveUp => None,
                LongRetryAfter::WaitLongest => Some(self.max_retry_after),
            },
        }
    }

    /// Runs `attempt`, and again after each pause this policy calls for;
    /// returns the last outcome.
    pub fn run(
        &self,
        mut attempt: impl FnMut() -> Result<Response, Error>,
    ) -> Result<Response, Error> {
        let mut retries = 0;
        loop {
            let outcome = attempt();
            let Some(pause) = self.pause(retries, &outcome) else {
                return outcome;
            };
            match &outcome {
                Ok(response) => log::debug!(
                    "status {} is retried in {} ms",
                    response.status,
                    pause.as_millis()
                ),
                Err(error) => log::debug!("{error} is retried in {} ms", pause.as_millis()),
            }
            (self.sleeper)(pause);
            retries += 1;
        }
    }
}

#[cfg(test)]
mod tests;
