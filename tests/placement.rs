//! Placement on real machines' topologies (`tests/sysfs/`, recorded from
//! util-linux's lscpu dumps; its README says which): for every core count of
//! a 1..64 sweep, with no database, a small one and one as large as the
//! server, the server gets its CPUs on whole physical cores, on one NUMA node
//! where one holds them; the database and the load generator get physical
//! cores of their own wherever the machine has them, the generator on the
//! server's node while that node has room for it; and a placement is
//! `shared` only when no physical core was left free.

use concur::host::topology::{self, Placement, Topology};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn machine(name: &str, usable: &[usize]) -> Topology {
    let root: PathBuf = [env!("CARGO_MANIFEST_DIR"), "tests", "sysfs", name].iter().collect();
    let t = topology::read(&root, usable);
    assert_eq!(t.note, None, "{name} should read");
    t
}

fn cores_of(t: &Topology, cpus: &[usize]) -> BTreeSet<usize> {
    cpus.iter().map(|&c| t.core_of(c).unwrap()).collect()
}

/// The usable CPUs of a physical core.
fn core_cpus(t: &Topology, core: usize) -> Vec<usize> {
    t.cpus().into_iter().filter(|&c| t.core_of(c) == Some(core)).collect()
}

fn nodes() -> impl Iterator<Item = usize> {
    0..8
}

/// Physical cores a role of `n` CPUs takes on a node whose cores each have `threads` usable CPUs.
fn cores_for(n: usize, threads: usize) -> usize {
    n.div_ceil(threads)
}

/// Every rule of spec/PROFILES.md ("Cores") for one placement.
fn check(name: &str, t: &Topology, k: usize, d: usize, p: &Placement) {
    let at = format!("{name}, {k} server CPU(s), database {d}: {p:?}");
    let all: BTreeSet<usize> = t.cpus().iter().map(|&c| t.core_of(c).unwrap()).collect();
    assert_eq!(p.server.len(), k, "{at}");
    let partial = cores_of(t, &p.server).into_iter().filter(|&c| !core_cpus(t, c).iter().all(|x| p.server.contains(x))).count();
    assert!(partial <= 1, "the server takes whole cores but its last: {at}");
    let uniform = all.iter().all(|&c| core_cpus(t, c).len() == t.threads_per_core);
    if uniform && k.is_multiple_of(t.threads_per_core) {
        assert_eq!(partial, 0, "{at}");
    }
    let (server, database, generator) = (cores_of(t, &p.server), cores_of(t, &p.database), cores_of(t, &p.generator));
    if p.shared {
        let used: BTreeSet<usize> = server.union(&database).copied().collect();
        assert_eq!(used, all, "shared although a physical core was free: {at}");
    } else {
        assert!(!p.generator.is_empty() && (d == 0 || !p.database.is_empty()), "{at}");
        assert!(server.is_disjoint(&generator) && server.is_disjoint(&database) && database.is_disjoint(&generator), "{at}");
    }
    if nodes().any(|n| t.node_cpus(n).len() >= k) {
        assert_eq!(p.server_nodes.len(), 1, "the server spans nodes although one holds it: {at}");
    }
    let threads = if uniform { t.threads_per_core } else { 1 };
    let room = |n: usize| t.node_cpus(n).len() / threads;
    if uniform && nodes().any(|n| room(n) > cores_for(k, threads) + cores_for(d, threads)) {
        assert!(p.database.iter().all(|&c| p.server_nodes.contains(&t.node_of(c).unwrap())), "the database off the server's node: {at}");
    }
    let taken: BTreeSet<usize> = server.union(&database).copied().collect();
    let free_near = p.server_nodes.iter().flat_map(|&n| t.node_cpus(n)).filter(|&c| !taken.contains(&t.core_of(c).unwrap())).count();
    if !p.shared && free_near >= k {
        assert!(p.generator_nodes.iter().all(|n| p.server_nodes.contains(n)), "the generator off the server's node with room there: {at}");
    }
}

fn sweep(name: &str, t: &Topology) {
    let usable = t.cpus().len();
    for k in (1..=64).filter(|&k| k <= usable) {
        for d in [0, 1, k] {
            check(name, t, k, d, &t.place(k, d));
        }
    }
}

#[test]
fn a_two_socket_epyc_with_siblings_48_apart_keeps_the_roles_on_their_own_cores() {
    let t = machine("epyc-7451", &(0..96).collect::<Vec<_>>());
    assert_eq!((t.threads_per_core, t.node_cpus(0)), (2, vec![0, 1, 2, 3, 4, 5, 48, 49, 50, 51, 52, 53]));
    sweep("epyc-7451", &t);
    let two = t.place(2, 0);
    assert_eq!((two.server, two.generator, two.shared), (vec![0, 48], vec![1, 2, 3, 4, 5, 49, 50, 51, 52, 53], false));
    let three = t.place(3, 2);
    assert_eq!((three.server, three.database), (vec![0, 1, 48], vec![2, 50]), "49, the third CPU's sibling, stays idle");
    let node = t.place(12, 0);
    assert_eq!((node.server_nodes, node.generator.len(), node.generator_nodes.len()), (vec![0], 84, 7));
    let spanning = t.place(13, 0);
    assert_eq!((spanning.server_nodes, spanning.generator_nodes.contains(&0)), (vec![0, 1], false));
}

#[test]
fn a_power7_with_adjacent_smt4_siblings_gives_the_server_whole_cores() {
    let t = machine("power7", &(0..16).collect::<Vec<_>>());
    assert_eq!(t.threads_per_core, 4);
    sweep("power7", &t);
    let two = t.place(2, 0);
    assert_eq!((two.server, two.generator[0], two.generator.len()), (vec![0, 1], 4, 12), "2 and 3 stay idle");
    let all_but_one_core = t.place(12, 0);
    assert_eq!((all_but_one_core.generator, all_but_one_core.shared), (vec![12, 13, 14, 15], false));
    let thirteen = t.place(13, 0);
    assert_eq!((thirteen.generator, thirteen.shared), (vec![13, 14, 15], true), "only the last core's idle threads are left");
}

#[test]
fn a_pentium_4_with_hyperthreading_has_no_core_to_spare() {
    let t = machine("pentium4-ht", &[0, 1]);
    assert_eq!((t.threads_per_core, t.core_of(1)), (2, Some(0)));
    sweep("pentium4-ht", &t);
    let one = t.place(1, 0);
    assert_eq!((one.server, one.generator, one.shared), (vec![0], vec![1], true));
}

#[test]
fn a_milk_v_pioneer_without_smt_keeps_the_server_on_one_of_its_four_nodes() {
    let t = machine("milkv-pioneer", &(0..64).collect::<Vec<_>>());
    assert_eq!((t.threads_per_core, t.node_cpus(1)[..3].to_vec()), (1, vec![8, 9, 10]));
    sweep("milkv-pioneer", &t);
    let eight = t.place(8, 0);
    assert_eq!((eight.server, eight.generator), ((0..8).collect(), (16..24).collect()), "the generator on node 0's other half");
    let node = t.place(16, 0);
    assert_eq!((node.server, node.generator.len(), node.generator_nodes), ([(0..8), (16..24)].into_iter().flatten().collect(), 48, vec![1, 2, 3]));
}

#[test]
fn a_container_on_part_of_an_i7_laptop_uses_only_its_cpuset() {
    // docker run --cpuset-cpus 2-7 on a 4-core i7-1165G7 whose siblings are 4 apart:
    // CPUs 4 and 5 are the second threads of cores whose first (0, 1) it may not use.
    let t = machine("i7-1165g7", &[2, 3, 4, 5, 6, 7]);
    assert_eq!((t.cpus(), t.core_of(6), t.core_of(4)), (vec![2, 3, 4, 5, 6, 7], Some(2), Some(4)));
    sweep("i7-1165g7", &t);
    let two = t.place(2, 0);
    assert_eq!((two.server, two.generator), (vec![2, 6], vec![3, 4, 5, 7]));
    let three = t.place(3, 0);
    assert_eq!((three.server, three.generator), (vec![2, 3, 6], vec![4, 5]), "7, 3's sibling, stays idle");
    let six = t.place(6, 0);
    assert_eq!((six.generator, six.shared), (vec![2, 3, 4, 5, 6, 7], true));
}

#[test]
fn a_tree_without_the_cpus_topology_places_by_number() {
    let t = topology::read(Path::new(env!("CARGO_MANIFEST_DIR")), &[0, 1, 2]);
    assert!(t.note.as_deref().is_some_and(|n| n.contains("placed by CPU number")), "{:?}", t.note);
    let p = t.place(2, 0);
    assert_eq!((p.server, p.generator, p.shared), (vec![0, 1], vec![2], false));
}
