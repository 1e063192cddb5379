//! The machine's CPU topology as the kernel gives it in sysfs, and where a
//! run's processes go on it. CPU numbers alone mislead on the machines people
//! rent: the hyperthread siblings of one physical core are numbered N apart
//! on most x86 servers and adjacent on others, and a two-socket machine's
//! CPUs sit on two or more NUMA nodes, so "the first k CPUs for the server,
//! the rest for the generator" can put the generator on the other half of
//! the server's own cores. [`read`] groups the CPUs this process may use (its
//! affinity mask, which a container or `taskset` narrows) into physical
//! cores (`thread_siblings_list`) and nodes (`node*/cpulist`); [`Topology::place`]
//! hands out whole cores, the server's first and on one node while one holds
//! them, then a database's, then the load generator's. spec/PROFILES.md
//! ("Cores") states the rules. A tree that cannot be read gives the old
//! placement by number, with a note, never an error.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// The usable CPUs as physical cores on NUMA nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct Topology {
    /// Physical cores with a usable CPU, in the order of their lowest one.
    cores: Vec<Core>,
    /// Hardware threads per physical core, usable or not (1: no SMT).
    pub threads_per_core: usize,
    /// Set when sysfs could not be read and CPUs are placed by number: why.
    pub note: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
struct Core {
    node: usize,
    /// Its usable CPUs, ascending.
    cpus: Vec<usize>,
}

/// The CPUs each role of a point runs on, for one server core count.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Placement {
    pub server: Vec<usize>,
    pub generator: Vec<usize>,
    /// Empty when no database was asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub database: Vec<usize>,
    /// Two roles share a physical core: the machine has too few for all.
    pub shared: bool,
    /// NUMA nodes of the server's CPUs, and of the generator's.
    pub server_nodes: Vec<usize>,
    pub generator_nodes: Vec<usize>,
}

/// What a run records of the topology its processes were placed on.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// `sysfs`, or `numbering` when it could not be read and CPUs were placed by number.
    pub source: String,
    /// Hardware threads per physical core (1: SMT off or absent).
    pub threads_per_core: u32,
    /// Physical cores and NUMA nodes among the usable CPUs.
    pub physical_cores: u32,
    pub numa_nodes: u32,
    /// Where each role ran, per server core count of the run.
    pub placements: Vec<Placement>,
}

/// The topology under `root` (`/` but in tests) of the CPUs in `usable`.
pub fn read(root: &Path, usable: &[usize]) -> Topology {
    read_sysfs(root, usable).unwrap_or_else(|why| Topology {
        note: Some(format!("the CPU topology could not be read ({why}): server and load generator are placed by CPU number")),
        ..numbered(usable)
    })
}

/// Each CPU a physical core of its own on one node: placement by CPU number.
pub fn numbered(usable: &[usize]) -> Topology {
    Topology { cores: usable.iter().map(|&cpu| Core { node: 0, cpus: vec![cpu] }).collect(), threads_per_core: 1, note: None }
}

fn read_sysfs(root: &Path, usable: &[usize]) -> Result<Topology, String> {
    let system = root.join("sys/devices/system");
    let nodes = node_of_cpu(&system.join("node"))?;
    let (mut cores, mut threads) = (Vec::<Core>::new(), 1);
    for &cpu in usable {
        let dir = system.join(format!("cpu/cpu{cpu}/topology"));
        // core_cpus_list is the newer name of the same list (Linux 5.4).
        let file = ["core_cpus_list", "thread_siblings_list"].map(|f| dir.join(f)).into_iter().find(|p| p.exists());
        let file = file.ok_or_else(|| format!("{} has no thread_siblings_list", dir.display()))?;
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let siblings = parse_list(&text).filter(|s| s.contains(&cpu)).ok_or_else(|| format!("{}: '{}' is not a CPU list holding {cpu}", file.display(), text.trim()))?;
        threads = threads.max(siblings.len());
        match cores.iter_mut().find(|c| siblings.contains(&c.cpus[0])) {
            Some(core) => core.cpus.push(cpu),
            None => cores.push(Core { node: nodes.get(&cpu).copied().unwrap_or(0), cpus: vec![cpu] }),
        }
    }
    Ok(Topology { cores, threads_per_core: threads, note: None })
}

/// CPU → NUMA node; empty when the kernel has no node folder (one node).
fn node_of_cpu(dir: &Path) -> Result<BTreeMap<usize, usize>, String> {
    let mut map = BTreeMap::new();
    let Ok(entries) = std::fs::read_dir(dir) else { return Ok(map) };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(node) = name.strip_prefix("node").and_then(|n| n.parse::<usize>().ok()) else { continue };
        let file = entry.path().join("cpulist");
        let text = std::fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let cpus = parse_list(&text).ok_or_else(|| format!("{}: '{}' is not a CPU list", file.display(), text.trim()))?;
        map.extend(cpus.into_iter().map(|cpu| (cpu, node)));
    }
    Ok(map)
}

/// `0-3,8,10-11` (the kernel's CPU lists; empty for a node without CPUs).
fn parse_list(text: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let (a, b) = part.split_once('-').unwrap_or((part, part));
        let (a, b) = (a.parse::<usize>().ok()?, b.parse::<usize>().ok()?);
        cpus.extend(a..=b);
    }
    Some(cpus)
}

impl Topology {
    /// Every usable CPU, ascending.
    pub fn cpus(&self) -> Vec<usize> {
        let mut cpus: Vec<usize> = self.cores.iter().flat_map(|c| c.cpus.iter().copied()).collect();
        cpus.sort_unstable();
        cpus
    }

    fn nodes(&self) -> Vec<usize> {
        let mut nodes: Vec<usize> = self.cores.iter().map(|c| c.node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    fn node_size(&self, node: usize) -> usize {
        self.cores.iter().filter(|c| c.node == node).map(|c| c.cpus.len()).sum()
    }

    /// Physical cores of `node` left after taking `counts` CPUs in turn, whole
    /// cores in order; `None` when the node has too few.
    fn room(&self, node: usize, counts: &[usize]) -> Option<usize> {
        let mut free = self.cores.iter().filter(|c| c.node == node).map(|c| c.cpus.len());
        for &count in counts {
            let mut got = 0;
            while got < count {
                got += free.next()?;
            }
        }
        Some(free.count())
    }

    /// Core indices in the order roles take them: the server's home node
    /// first (the first node that holds the server, its database and a
    /// core more; else the first that holds the server), then the others by
    /// number. With no home the server spans nodes, the largest first.
    fn core_order(&self, server: usize, database: usize) -> Vec<usize> {
        let mut nodes = self.nodes();
        let home = nodes.iter().position(|&n| self.room(n, &[server, database]).is_some_and(|left| left > 0));
        match home.or_else(|| nodes.iter().position(|&n| self.room(n, &[server]).is_some())) {
            Some(i) => {
                let node = nodes.remove(i);
                nodes.insert(0, node);
            }
            None => nodes.sort_by_key(|&n| std::cmp::Reverse(self.node_size(n))),
        }
        nodes.iter().flat_map(|&n| (0..self.cores.len()).filter(move |&i| self.cores[i].node == n)).collect()
    }

    /// Places `server` CPUs for the server and `database` for a database
    /// (0: none) on whole physical cores of their own, and gives the load
    /// generator the free cores of the server's nodes when they hold at
    /// least as many CPUs as the server, else every free core. A count that
    /// does not fill its last core leaves that core's other threads idle.
    /// Short of free cores, the database runs on the server's CPUs and the
    /// generator on the idle threads of the others' cores, else on the
    /// server's CPUs, and the placement is `shared`.
    pub fn place(&self, server: usize, database: usize) -> Placement {
        let mut free = self.core_order(server, database);
        let (server_cpus, mut used) = self.take(&mut free, server);
        let (mut database_cpus, db_used) = self.take(&mut free, database);
        used.extend(db_used);
        let mut shared = false;
        if database > 0 && database_cpus.is_empty() {
            (database_cpus, shared) = (server_cpus.clone(), true);
        }
        let server_nodes = self.nodes_of(&server_cpus);
        let local: Vec<usize> = free.iter().filter(|&&i| server_nodes.contains(&self.cores[i].node)).copied().collect();
        let mut generator = self.cpus_of(if self.cpus_of(&local).len() >= server { &local } else { &free });
        if generator.is_empty() {
            let taken = [&server_cpus[..], &database_cpus[..]].concat();
            let idle: Vec<usize> = self.cpus_of(&used).into_iter().filter(|c| !taken.contains(c)).collect();
            (generator, shared) = (if idle.is_empty() { server_cpus.clone() } else { idle }, true);
        }
        let generator_nodes = self.nodes_of(&generator);
        Placement { server: server_cpus, generator, database: database_cpus, shared, server_nodes, generator_nodes }
    }

    /// `count` CPUs from the cores at the front of `free`, and those cores.
    fn take(&self, free: &mut Vec<usize>, count: usize) -> (Vec<usize>, Vec<usize>) {
        let (mut cpus, mut cores) = (Vec::new(), Vec::new());
        while cpus.len() < count && !free.is_empty() {
            let core = free.remove(0);
            cpus.extend(self.cores[core].cpus.iter().take(count - cpus.len()));
            cores.push(core);
        }
        cpus.sort_unstable();
        (cpus, cores)
    }

    fn cpus_of(&self, cores: &[usize]) -> Vec<usize> {
        let mut cpus: Vec<usize> = cores.iter().flat_map(|&i| self.cores[i].cpus.iter().copied()).collect();
        cpus.sort_unstable();
        cpus
    }

    fn nodes_of(&self, cpus: &[usize]) -> Vec<usize> {
        let mut nodes: Vec<usize> = self.cores.iter().filter(|c| c.cpus.iter().any(|x| cpus.contains(x))).map(|c| c.node).collect();
        nodes.sort_unstable();
        nodes.dedup();
        nodes
    }

    /// The physical core (its lowest usable CPU) that `cpu` belongs to.
    pub fn core_of(&self, cpu: usize) -> Option<usize> {
        self.cores.iter().find(|c| c.cpus.contains(&cpu)).map(|c| c.cpus[0])
    }

    /// The NUMA node `cpu` is on.
    pub fn node_of(&self, cpu: usize) -> Option<usize> {
        self.cores.iter().find(|c| c.cpus.contains(&cpu)).map(|c| c.node)
    }

    /// The usable CPUs of NUMA node `node`.
    pub fn node_cpus(&self, node: usize) -> Vec<usize> {
        self.cpus().into_iter().filter(|&c| self.node_of(c) == Some(node)).collect()
    }

    /// What a run records: this topology and its `placements`.
    pub fn record(&self, placements: Vec<Placement>) -> Record {
        Record {
            source: if self.note.is_some() { "numbering" } else { "sysfs" }.into(),
            threads_per_core: self.threads_per_core as u32,
            physical_cores: self.cores.len() as u32,
            numa_nodes: self.nodes().len() as u32,
            placements,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_parse_as_the_kernel_writes_them() {
        assert_eq!(parse_list("0-2,5,7-8\n"), Some(vec![0, 1, 2, 5, 7, 8]));
        assert_eq!(parse_list("\n"), Some(vec![]));
        assert_eq!(parse_list("0-x"), None);
    }

    #[test]
    fn numbering_places_as_before_the_topology() {
        let t = numbered(&[2, 3, 5, 7]);
        let p = t.place(2, 0);
        assert_eq!((p.server, p.generator, p.shared), (vec![2, 3], vec![5, 7], false));
        let all = t.place(4, 0);
        assert_eq!((all.server, all.generator, all.shared), (vec![2, 3, 5, 7], vec![2, 3, 5, 7], true));
    }

    #[test]
    fn an_unreadable_tree_falls_back_to_numbering_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        let t = read(dir.path(), &[0, 1]);
        assert_eq!(t.cores, numbered(&[0, 1]).cores);
        let note = t.note.unwrap();
        assert!(note.contains("cpu0/topology has no thread_siblings_list") && note.contains("placed by CPU number"), "{note}");
    }

    #[test]
    fn this_machine_is_read() {
        let usable = super::super::affinity::available();
        let t = read(Path::new("/"), &usable);
        assert_eq!(t.cpus(), usable, "{:?}", t.note);
    }
}
