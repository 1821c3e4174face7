//! spur's OpenAPI document (`rest/openapi.json`, served at `/openapi/v3`):
//! generated from the answers spur gave to every operation of every
//! version ([`generate`]), and compared with slurmrestd's published
//! documents schema by schema ([`compare`]).
//!
//! A schema is inferred from the answers of its operation: each key that
//! every answer carried is required, a key some answers left out is
//! optional, a list's items are described by all the items seen, a number
//! is an integer unless one answer had a fraction. Objects of the same
//! shape are one named component.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Map, Value};

use spur_rest::dp::desc::{self, Accepts};
use spur_rest::reply::Version;

/// One answer spur gave.
#[derive(Debug, Clone)]
pub struct Sample {
    /// The method, in lower case.
    pub method: &'static str,
    /// The path's template (`/slurm/v0.0.44/job/{job_id}`).
    pub template: String,
    /// The query's keys.
    pub query: Vec<String>,
    /// The request's body.
    pub request: Option<Value>,
    /// The answer's status.
    pub status: u16,
    /// The answer.
    pub answer: Value,
}

/// The keys of a path's query (`/jobs?users=a&flags=x` gives `users`,
/// `flags`).
pub fn query_keys(path: &str) -> Vec<String> {
    path.split_once('?')
        .map(|(_, q)| {
            q.split('&')
                .filter_map(|kv| kv.split('=').next())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Where the committed document is.
pub fn path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../rest/openapi.json")
}

/// The schema of one value.
fn infer(v: &Value) -> Value {
    match v {
        Value::Null => json!({"nullable": true}),
        Value::Bool(_) => json!({"type": "boolean"}),
        Value::Number(n) if n.is_f64() => json!({"type": "number", "format": "double"}),
        Value::Number(_) => json!({"type": "integer", "format": "int64"}),
        Value::String(_) => json!({"type": "string"}),
        Value::Array(items) => {
            let item = items.iter().map(infer).reduce(merge).unwrap_or(json!({}));
            json!({"type": "array", "items": item})
        }
        Value::Object(map) => {
            let props: Map<String, Value> =
                map.iter().map(|(k, v)| (k.clone(), infer(v))).collect();
            let required: Vec<&String> = map.keys().collect();
            json!({"type": "object", "properties": props, "required": required})
        }
    }
}

/// One schema describing what `a` or `b` describes.
fn merge(mut a: Value, mut b: Value) -> Value {
    let mut nullable = false;
    for s in [&mut a, &mut b] {
        if let Some(m) = s.as_object_mut() {
            nullable |= m.remove("nullable").is_some();
        }
    }
    let mut merged = merge_types(a, b);
    if nullable {
        merged["nullable"] = json!(true);
    }
    merged
}

/// [`merge`] of schemas that are not nullable.
fn merge_types(a: Value, b: Value) -> Value {
    if a == json!({}) {
        return b;
    }
    if b == json!({}) || a == b {
        return a;
    }
    let kind = |s: &Value| s["type"].as_str().unwrap_or("").to_string();
    match (kind(&a).as_str(), kind(&b).as_str()) {
        ("object", "object") => {
            let (mut pa, pb) = (a["properties"].clone(), &b["properties"]);
            let props = pa.as_object_mut().expect("properties");
            for (k, v) in pb.as_object().expect("properties") {
                // Merged in place: keys keep the order they were first seen in.
                match props.get_mut(k) {
                    Some(old) => *old = merge(old.take(), v.clone()),
                    None => {
                        props.insert(k.clone(), v.clone());
                    }
                }
            }
            let names = |s: &Value| -> Vec<String> {
                s["required"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|k| k.as_str().map(str::to_string))
                    .collect()
            };
            let rb = names(&b);
            let required: Vec<String> = names(&a).into_iter().filter(|k| rb.contains(k)).collect();
            json!({"type": "object", "properties": pa, "required": required})
        }
        ("array", "array") => {
            json!({"type": "array", "items": merge(a["items"].clone(), b["items"].clone())})
        }
        ("integer", "number") | ("number", "integer") => {
            json!({"type": "number", "format": "double"})
        }
        _ => {
            // Each option of one type once: an option merges into the one
            // of its type already there.
            let mut options: Vec<Value> = Vec::new();
            for s in [a, b] {
                let inner = match s.get("oneOf").and_then(Value::as_array) {
                    Some(inner) => inner.clone(),
                    None => vec![s],
                };
                for o in inner {
                    match options.iter_mut().find(|x| kind(x) == kind(&o)) {
                        Some(same) => *same = merge_types(same.take(), o),
                        None => options.push(o),
                    }
                }
            }
            if options.len() == 1 {
                return options.pop().expect("one");
            }
            json!({"oneOf": options})
        }
    }
}

/// The schema of what `accepts` takes.
fn accepted(accepts: Accepts) -> Value {
    match accepts {
        Accepts::Text => json!({"type": "string"}),
        Accepts::List => json!({"oneOf": [
            {"type": "array", "items": {"type": "string"}},
            {"type": "string", "description": "a comma-separated list"},
        ]}),
        Accepts::Flag => json!({"type": "boolean"}),
        Accepts::Number => json!({"oneOf": [
            {"type": "integer", "format": "int64"},
            {"type": "object", "properties": {
                "set": {"type": "boolean"},
                "infinite": {"type": "boolean"},
                "number": {"type": "integer", "format": "int64"},
            }},
            {"type": "string", "description": "a number or INFINITE"},
        ]}),
        Accepts::Any => json!({"description": "accepted; spur does not act on it"}),
    }
}

/// The `job_desc_msg` spur reads in `v`.
fn job_desc(v: Version) -> Value {
    let props: Map<String, Value> = desc::known(v)
        .map(|(k, a)| (k.to_string(), accepted(a)))
        .collect();
    json!({"type": "object", "properties": props})
}

/// The job properties 22.05's `version` (v0.0.36 to v0.0.38) reads.
fn job_properties(version: &str) -> Value {
    let props: Map<String, Value> = spur_rest::v0038::props::taken()
        .filter_map(|(k, json)| {
            let name = spur_rest::v0038::older::job_property_name(version, k)?;
            Some((name, json))
        })
        .map(|(k, json)| {
            let schema = match json {
                Some("array") => json!({"type": "array", "items": {"type": "string"}}),
                Some(kind) => json!({ "type": kind }),
                None => json!({}),
            };
            (k.to_string(), schema)
        })
        .collect();
    json!({"type": "object", "properties": props})
}

/// The version of a template (`v0.0.44`; spur's own paths `/spur/v1/...`
/// are `v1`) and its component prefix.
fn version_of(template: &str) -> (String, String) {
    if let Some(rest) = template.strip_prefix("/spur/") {
        let v = rest.split('/').next().unwrap_or("v1").to_string();
        return (v.clone(), format!("spur_{v}"));
    }
    let v = template
        .split('/')
        .find(|s| s.starts_with("v0.0."))
        .expect("a versioned path")
        .to_string();
    let prefix = if template.starts_with("/slurmdb/") && v == "v0.0.38" {
        "dbv0.0.38".to_string()
    } else {
        v.clone()
    };
    (v, prefix)
}

/// Components: objects of one shape named once.
#[derive(Default)]
struct Components {
    by_shape: BTreeMap<String, String>,
    schemas: Map<String, Value>,
}

impl Components {
    /// `schema` with each object inside it (and itself, named `name`)
    /// replaced by a reference to its component.
    fn name(&mut self, prefix: &str, name: &str, schema: Value) -> Value {
        let schema = match schema {
            Value::Object(mut m) => {
                if let Some(Value::Object(props)) = m.remove("properties") {
                    let props: Map<String, Value> = props
                        .into_iter()
                        .map(|(k, v)| {
                            let named = self.name(prefix, &k, v);
                            (k, named)
                        })
                        .collect();
                    m.insert("properties".into(), Value::Object(props));
                }
                if let Some(items) = m.remove("items") {
                    let named = self.name(prefix, &format!("{name}_item"), items);
                    m.insert("items".into(), named);
                }
                if let Some(Value::Array(options)) = m.remove("oneOf") {
                    let named: Vec<Value> = options
                        .into_iter()
                        .map(|o| self.name(prefix, name, o))
                        .collect();
                    m.insert("oneOf".into(), Value::Array(named));
                }
                Value::Object(m)
            }
            other => other,
        };
        let has_props = schema["properties"]
            .as_object()
            .is_some_and(|p| !p.is_empty());
        if !has_props {
            return schema;
        }
        let shape = format!("{prefix}{schema}");
        let component = match self.by_shape.get(&shape) {
            Some(existing) => existing.clone(),
            None => {
                let base = format!("{prefix}_{name}");
                let mut unique = base.clone();
                let mut n = 2;
                while self.schemas.contains_key(&unique) {
                    unique = format!("{base}_{n}");
                    n += 1;
                }
                self.schemas.insert(unique.clone(), schema);
                self.by_shape.insert(shape, unique.clone());
                unique
            }
        };
        json!({"$ref": format!("#/components/schemas/{component}")})
    }
}

/// The operation's id: `slurm_v0044_get_job`.
fn operation_id(method: &str, template: &str) -> String {
    let mut words = Vec::new();
    let mut plugin = "";
    let mut tag = String::new();
    for (i, part) in template.split('/').filter(|p| !p.is_empty()).enumerate() {
        match i {
            0 => plugin = part,
            1 => tag = part.replace('.', ""),
            _ if part.starts_with('{') => {}
            _ => words.push(part),
        }
    }
    format!("{plugin}_{tag}_{method}_{}", words.join("_"))
}

/// spur's document, from its answers.
pub fn generate(samples: &[Sample]) -> Value {
    let mut ops: BTreeMap<(String, &str), Vec<&Sample>> = BTreeMap::new();
    for s in samples {
        ops.entry((s.template.clone(), s.method))
            .or_default()
            .push(s);
    }
    let mut components = Components::default();
    let mut paths = Map::new();
    for ((template, method), answers) in &ops {
        let (v, prefix) = version_of(template);
        let id = operation_id(method, template);
        let mut params: Vec<Value> = template
            .split('/')
            .filter_map(|p| p.strip_prefix('{')?.strip_suffix('}'))
            .map(|name| {
                json!({"name": name, "in": "path", "required": true,
                       "schema": {"type": "string"}})
            })
            .collect();
        let mut query: Vec<&String> = answers.iter().flat_map(|s| &s.query).collect();
        query.sort();
        query.dedup();
        params.extend(query.into_iter().map(|name| {
            json!({"name": name, "in": "query", "required": false,
                   "schema": {"type": "string"}})
        }));
        let mut responses = Map::new();
        for (key, wanted) in [("200", true), ("default", false)] {
            let schema = answers
                .iter()
                .filter(|s| (s.status == 200) == wanted)
                .map(|s| infer(&s.answer))
                .reduce(merge);
            if let Some(schema) = schema {
                let named = components.name(&prefix, &format!("{id}_resp"), schema);
                responses.insert(
                    key.into(),
                    json!({
                        "description": if wanted { "the answer" } else { "an error" },
                        "content": {"application/json": {"schema": named}},
                    }),
                );
            }
        }
        let mut op = json!({
            "operationId": id,
            "tags": [template.split('/').nth(1).unwrap_or("")],
            "parameters": params,
            "responses": responses,
        });
        let bodies: Vec<&Value> = answers.iter().filter_map(|s| s.request.as_ref()).collect();
        if !bodies.is_empty() {
            let mut schema = bodies.iter().map(|b| infer(b)).reduce(merge).expect("one");
            if let Some(job) = schema.pointer_mut("/properties/job") {
                *job = match Version::parser(&v) {
                    Some(pv) => job_desc(pv),
                    None => job_properties(&v),
                };
            }
            // A request names what it sets: nothing is required of it.
            if let Some(m) = schema.as_object_mut() {
                m.remove("required");
            }
            let named = components.name(&prefix, &format!("{id}_req"), schema);
            op["requestBody"] = json!({
                "content": {"application/json": {"schema": named}},
            });
        }
        paths
            .entry(template.clone())
            .or_insert_with(|| json!({}))
            .as_object_mut()
            .expect("a path item")
            .insert(method.to_string(), op);
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "spur REST API",
            "description": "slurmrestd's API as spur serves it",
            "version": env!("CARGO_PKG_VERSION"),
            "license": {"name": "Apache-2.0"},
        },
        "paths": paths,
        "components": {"schemas": components.schemas},
    })
}

/// Follows `$ref`s of `doc` until a schema.
fn resolve<'a>(doc: &'a Value, mut s: &'a Value) -> &'a Value {
    while let Some(r) = s.get("$ref").and_then(Value::as_str) {
        let name = r.rsplit('/').next().expect("a ref names a schema");
        s = doc["components"]["schemas"]
            .get(name)
            .or_else(|| doc.get("definitions").and_then(|d| d.get(name)))
            .unwrap_or_else(|| panic!("unresolved {r}"));
    }
    s
}

/// Which side of an operation a schema describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    /// What spur reads: its keys must be published ones (spur takes more
    /// forms of a value than the published type, never other keys).
    Request,
    /// What spur writes: published keys, of published types, with every
    /// published required key.
    Answer,
}

/// Where spur's schema `ours` says what the published `theirs` does not:
/// a key the published schema lacks and, for answers, a required key spur
/// may leave out or a type the published schema does not give.
fn compare_schema<'a>(
    sides: (&'a Value, &'a Value),
    ours: &'a Value,
    theirs: &'a Value,
    side: Side,
    at: &str,
    out: &mut Vec<String>,
) {
    let (ours_doc, doc) = sides;
    let ours = resolve(ours_doc, ours);
    let theirs = resolve(doc, theirs);
    if let Some(options) = ours.get("oneOf").and_then(Value::as_array) {
        for o in options {
            compare_schema(sides, o, theirs, side, at, out);
        }
        return;
    }
    // A schema with properties and no type (22.05's documents have
    // some) describes an object.
    let kind = |s: &'a Value| -> Option<&'a str> {
        s["type"]
            .as_str()
            .or_else(|| s.get("properties").map(|_| "object"))
    };
    let (Some(ok), Some(tk)) = (kind(ours), kind(theirs)) else {
        return;
    };
    if side == Side::Request && (ok != "object" || tk != "object") {
        return;
    }
    let fits = ok == tk || (ok == "integer" && tk == "number");
    if !fits {
        out.push(format!("{at}: spur gives {ok}, published {tk}"));
        return;
    }
    match ok {
        "object" => {
            let ours_props = ours["properties"].as_object();
            let their_props = theirs["properties"].as_object();
            let required: Vec<&str> = ours["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let their_required = theirs["required"].as_array().into_iter().flatten();
            for key in their_required.filter_map(Value::as_str) {
                if side == Side::Answer
                    && !key.contains('/')
                    && ours_props.is_some()
                    && !required.contains(&key)
                {
                    out.push(format!("{at}/{key}: required, spur may leave it out"));
                }
            }
            for (k, s) in ours_props.into_iter().flatten() {
                match their_props.and_then(|p| p.get(k)) {
                    Some(t) => compare_schema(sides, s, t, side, &format!("{at}/{k}"), out),
                    None if their_props.is_some() => {
                        out.push(format!("{at}/{k}: not in the published schema"))
                    }
                    None => {}
                }
            }
        }
        "array" => {
            let at = format!("{at}[]");
            compare_schema(sides, &ours["items"], &theirs["items"], side, &at, out);
        }
        _ => {}
    }
}

/// Where spur's document `ours` departs from the published `doc`, for
/// every operation of `ours` under paths starting with one of `roots`:
/// the operation must be published, its parameters and request fields
/// must be published ones, and its answers must fit the published
/// schemas.
pub fn compare(ours: &Value, doc: &Value, roots: &[String]) -> (usize, Vec<String>) {
    let mut out = Vec::new();
    let mut compared = 0;
    for (template, item) in ours["paths"].as_object().expect("paths") {
        if !roots.iter().any(|r| template.starts_with(r.as_str())) {
            continue;
        }
        for (method, op) in item.as_object().expect("operations") {
            let at = format!("{method} {template}");
            let Some(theirs) = doc["paths"].get(template).and_then(|p| p.get(method)) else {
                out.push(format!("{at}: not published"));
                continue;
            };
            compared += 1;
            let their_params: Vec<&str> = theirs["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .chain(
                    doc["paths"][template]["parameters"]
                        .as_array()
                        .into_iter()
                        .flatten(),
                )
                .map(|p| resolve(doc, p))
                .filter_map(|p| p["name"].as_str())
                .collect();
            for p in op["parameters"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().expect("a named parameter");
                if !their_params.contains(&name) {
                    out.push(format!("{at}: parameter {name} is not published"));
                }
            }
            let body =
                |o: &Value| o["requestBody"]["content"]["application/json"]["schema"].clone();
            let (ours_body, their_body) = (body(op), body(theirs));
            if !ours_body.is_null() {
                if their_body.is_null() {
                    out.push(format!(
                        "{at}: takes a body the published operation does not"
                    ));
                } else {
                    let at = format!("{at} request");
                    compare_schema(
                        (ours, doc),
                        &ours_body,
                        &their_body,
                        Side::Request,
                        &at,
                        &mut out,
                    );
                }
            }
            for status in ["200", "default"] {
                let answer = |o: &Value| {
                    o["responses"][status]["content"]["application/json"]["schema"].clone()
                };
                let (a, b) = (answer(op), answer(theirs));
                if !a.is_null() && !b.is_null() {
                    let at = format!("{at} {status}");
                    compare_schema((ours, doc), &a, &b, Side::Answer, &at, &mut out);
                }
            }
        }
    }
    (compared, out)
}

/// Slurm 22.05's published document (v0.0.36 to v0.0.38), if present.
fn document_2205() -> Option<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../shared/slurm-openapi/openapi-slurmrestd-22.05-v0.0.36-38.json");
    let text = std::fs::read_to_string(path).ok()?;
    Some(serde_json::from_str(&text).expect("the document is JSON"))
}

/// The template of a v0.0.38 path (`/slurm/v0.0.38/job/37` gives
/// `/slurm/v0.0.38/job/{job_id}`).
fn template_0038(path: &str) -> String {
    let path = path.split('?').next().unwrap_or(path);
    let parts: Vec<&str> = path.split('/').collect();
    let mut out: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    if let [_, _, _, kind, _] = parts.as_slice() {
        let name = match *kind {
            "job" if parts[4] != "submit" => "{job_id}",
            "node" => "{node_name}",
            "partition" => "{partition_name}",
            "reservation" => "{reservation_name}",
            _ => return path.to_string(),
        };
        out[4] = name.to_string();
    }
    out.join("/")
}

/// What real slurmrestd 22.05.8 answered (the recordings beside the
/// repository), as samples.
fn recorded_samples() -> Vec<Sample> {
    let Ok(entries) = std::fs::read_dir(crate::recordings::folder()) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    names
        .iter()
        .filter_map(|name| crate::recordings::read(name))
        .filter_map(|r| {
            let method = match r.method.as_str() {
                "GET" => "get",
                "POST" => "post",
                "DELETE" => "delete",
                _ => return None,
            };
            Some(Sample {
                method,
                template: template_0038(&r.path),
                query: query_keys(&r.path),
                request: r.body.as_deref().and_then(|b| serde_json::from_str(b).ok()),
                status: r.status,
                answer: r.answer?,
            })
        })
        .filter(|s| s.template.contains("/v0.0.38/"))
        .flat_map(|s| {
            // 22.05 writes one document for a job and for the jobs
            // listing (`dbv0.0.38_job_info`).
            let listing = (s.template == "/slurmdb/v0.0.38/job/{job_id}").then(|| Sample {
                template: "/slurmdb/v0.0.38/jobs".into(),
                query: Vec::new(),
                ..s.clone()
            });
            std::iter::once(s).chain(listing)
        })
        .collect()
}

/// A difference at the root of an error answer, or in `meta`, without
/// its operation: 22.05's document gives every error answer the same
/// schema, and every answer the same `meta`.
fn root_of_error(difference: &str) -> Option<&str> {
    difference
        .split_once(" default: ")
        .map(|(_, what)| what)
        .or_else(|| difference.find("/meta/").map(|at| &difference[at..]))
}

#[test]
fn spurs_document_agrees_with_the_published_ones_schema_by_schema() {
    let ours: Value =
        serde_json::from_str(&std::fs::read_to_string(path()).expect("the committed document"))
            .expect("the committed document is JSON");
    let mut published: Vec<(&str, Value)> = ["v0.0.41", "v0.0.42", "v0.0.43", "v0.0.44", "v0.0.45"]
        .into_iter()
        .filter_map(|v| crate::openapi::document(v).map(|d| (v, d)))
        .collect();
    if let Some(doc) = document_2205() {
        published.push(("v0.0.36", doc.clone()));
        published.push(("v0.0.37", doc.clone()));
        published.push(("v0.0.38", doc));
    }
    if published.is_empty() {
        eprintln!("skipped: no published OpenAPI document found (../shared/slurm-openapi)");
        return;
    }
    // Where Slurm 22.05's document disagrees with what its slurmrestd
    // answers, spur answers as slurmrestd does (its answers are compared
    // with the recordings field by field): a difference the recorded
    // answers share is the document's.
    let recorded = generate(&recorded_samples());
    let roots_of = |v: &str| ["slurm", "slurmdb", "util"].map(|p| format!("/{p}/{v}/"));
    let explained_by_2205 = |found: &mut Vec<String>, doc: &Value| {
        let (_, real) = compare(&recorded, doc, &roots_of("v0.0.38"));
        let real_errors: Vec<&str> = real.iter().filter_map(|p| root_of_error(p)).collect();
        found.retain(|p| {
            !real.contains(p) && root_of_error(p).is_none_or(|e| !real_errors.contains(&e))
        });
    };
    let mut problems = Vec::new();
    for (v, doc) in &published {
        let (compared, mut found) = compare(&ours, doc, &roots_of(v));
        if *v == "v0.0.38" {
            explained_by_2205(&mut found, doc);
        } else if *v < "v0.0.38" {
            // 22.05's older plugins write what its v0.0.38 writes, less
            // the keys their documents leave out: where the older
            // document and v0.0.38's disagree on a value's type, spur
            // follows v0.0.38's; a key the older document lacks must be
            // left out unless slurmrestd 22.05's recorded answers have it
            // too, and so must any difference both documents have.
            let as_0038 = |text: &str| text.replace(&format!("/{v}/"), "/v0.0.38/");
            // The older version's operations alone, under v0.0.38's paths.
            let mut relabelled = ours.clone();
            let paths = relabelled["paths"].as_object_mut().expect("paths");
            let own: Map<String, Value> = std::mem::take(paths)
                .into_iter()
                .filter(|(p, _)| roots_of(v).iter().any(|r| p.starts_with(r.as_str())))
                .map(|(p, item)| (as_0038(&p), item))
                .collect();
            *paths = own;
            let (_, against_0038) = compare(&relabelled, doc, &roots_of("v0.0.38"));
            // What an operation takes is never excused.
            let of_operation = |p: &str| {
                p.ends_with(": not published")
                    || p.contains(": parameter ")
                    || p.ends_with("takes a body the published operation does not")
            };
            let mut kept: Vec<String> = found
                .iter()
                .map(|p| as_0038(p))
                .filter(|p| {
                    of_operation(p)
                        || p.ends_with("not in the published schema")
                        || against_0038.contains(p)
                })
                .collect();
            explained_by_2205(&mut kept, doc);
            found = kept
                .iter()
                .map(|p| p.replace("/v0.0.38/", &format!("/{v}/")))
                .collect();
        }
        eprintln!(
            "{v}: {compared} operations compared, {} differences",
            found.len()
        );
        assert!(compared >= 12, "{v}: only {compared} operations compared");
        problems.extend(found);
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
