//! The flags of `concur locust-worker`.

use super::RootArg;
use anyhow::Result;
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// `concur locust-worker`: one Locust worker for a master on another machine.
#[derive(Debug, Args)]
pub struct LocustWorkerArgs {
    #[command(flatten)]
    pub root: RootArg,
    /// The master: the address and port given to `concur run --locust-master-bind ADDR --locust-master-port PORT`
    #[arg(long, value_name = "HOST:PORT")]
    pub master: String,
    /// Write the worker's request and failure counts of the measurement to FILE (JSON) when it quits
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// Serve one point and exit, instead of connecting again for the next point of a sweep
    #[arg(long)]
    pub once: bool,
}

impl LocustWorkerArgs {
    pub fn run(self) -> Result<ExitCode> {
        crate::locust::worker_command(self.root.get(), &self.master, self.report.as_deref(), self.once)
    }
}
