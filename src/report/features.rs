//! The comparison tables generated from the manifests' `[features]`, as the
//! database kept them: the thesis' Tables 3 and 4 (concurrency features,
//! communication and error handling) and the SAC 2018 paper's Table 1
//! (language characteristics). A feature a manifest leaves out shows as —.

use super::model::Model;
use super::table::Table;
use crate::store::ImplRecord;

type YesNo = (&'static str, fn(&ImplRecord) -> Option<bool>);
type Words = (&'static str, fn(&ImplRecord) -> Option<String>);

/// Thesis Table 3: yes/no concurrency features, one row per implementation.
pub fn thesis_table3(model: &Model) -> Table {
    let columns: [YesNo; 5] = [
        ("Multi-threading", |i| i.manifest.features.multithreading),
        ("Lightweight threading", |i| i.manifest.features.lightweight_threads),
        ("Event based asynchronous programming", |i| i.manifest.features.event_based),
        ("Explicit concurrency", |i| i.manifest.features.explicit_concurrency),
        ("Mutable variables", |i| i.manifest.features.mutable_variables),
    ];
    let mut t = by_implementation("Language feature comparison (thesis Table 3)", columns.iter().map(|c| c.0));
    for i in &model.implementations {
        let mut row = vec![i.name.clone(), i.manifest.language.clone()];
        row.extend(columns.iter().map(|(_, get)| get(i).map_or("—", |b| if b { "Yes" } else { "No" }).to_string()));
        t.row(row);
    }
    t
}

/// Thesis Table 4: how concurrent units communicate and how errors travel.
pub fn thesis_table4(model: &Model) -> Table {
    let columns: [Words; 2] = [
        ("Inter-process communication method", |i| i.manifest.features.communication.clone()),
        ("Error handling", |i| i.manifest.features.error_handling.clone()),
    ];
    let mut t = by_implementation("Additional language features (thesis Table 4)", columns.iter().map(|c| c.0));
    for i in &model.implementations {
        let mut row = vec![i.name.clone(), i.manifest.language.clone()];
        row.extend(columns.iter().map(|(_, get)| capitalise(&get(i).unwrap_or_else(|| "—".into()))));
        t.row(row);
    }
    t
}

/// SAC 2018 Table 1: one row per implementation.
pub fn sac_table1(model: &Model) -> Table {
    let header = ["implementation", "language", "computation model", "typing", "coordination model", "runtime environment", "concurrency model"];
    let mut t = Table::new("Server language characteristics (SAC 2018 Table 1)", &header).labels(header.len());
    for i in &model.implementations {
        let f = &i.manifest.features;
        let show = |v: &Option<String>| capitalise(v.as_deref().unwrap_or("—"));
        t.row(vec![
            i.name.clone(),
            i.manifest.language.clone(),
            show(&f.computation),
            show(&f.typing),
            show(&f.coordination),
            show(&f.runtime_environment),
            i.manifest.model.as_str().to_string(),
        ]);
    }
    t
}

/// The thesis printed implementations as columns; with twenty they are rows.
fn by_implementation<'a>(title: &str, features: impl Iterator<Item = &'a str>) -> Table {
    let header: Vec<String> = ["implementation", "language"].into_iter().chain(features).map(str::to_string).collect();
    let width = header.len();
    Table { header, ..Table::new(title, &[]) }.labels(width)
}

fn capitalise(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}
