//! Statistics, of two kinds. Of a load run, kept so that runs merge
//! exactly: latency histograms (HDR, microseconds, 3 significant digits)
//! that serialize to the standard compressed V2 form, error counts by kind,
//! a per-second timeline, and percentiles that count the requests a run left
//! unanswered (`censored`); the load generator records into these types on
//! its hot path and merges them after its workers join; `concur merge`
//! merges them across processes and machines from the JSON the generator
//! writes. And of verdicts over runs: intervals from few repeats
//! (`interval`, on the quantiles of `quantile`), the machine's noise floor (`noise`), the variance
//! between two runs of one plan measured from A/A pairs (`between`), block designs
//! that take the variance from a run's own rounds (`blocks`), many tests at once (`multiple`), and what they allow
//! one to say (`verdict`), used alike by `concur compare` and the report.

pub mod between;
pub mod blocks;
mod censored;
mod errors;
mod histogram;
pub mod interval;
pub mod multiple;
pub mod noise;
pub mod quantile;
pub mod slope;
mod timeline;
pub mod verdict;

pub use censored::{Estimate, PERCENTILES, quantiles};
pub use errors::{ErrorCounts, ErrorKind};
pub use histogram::{Latencies, LatencyStats, MAX_LATENCY_US};
pub use timeline::{Second, Timeline};
