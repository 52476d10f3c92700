//! Plans one benchmark fixture N times through the typed API (`podplan_core::plan` on a
//! parsed request), for instruction counts:
//! `valgrind --tool=callgrind --toggle-collect='*run_typed*' target/release/examples/plan_instructions new 200 [images]`.
//!
//! With `images`, the request also reports every image of the pod as present on the node
//! (the image manager on, nothing to pull; `IfNotPresent` where the fixture gives no
//! policy): the cost of `EnsureImageExists` per start.

use std::hint::black_box;
use std::process::ExitCode;

#[inline(never)]
fn run_typed(request: &podplan_core::PlanRequest, times: usize) -> usize {
    let mut n = 0;
    for _ in 0..times {
        n += black_box(podplan_core::plan(black_box(request))).map_or(0, |p| p.steps.len());
    }
    n
}

/// `{"present": {tag-defaulted image: imageRef}}` for every image of the pod.
fn all_present(request: &serde_json::Value) -> serde_json::Value {
    let mut present = serde_json::Map::new();
    for list in ["initContainers", "containers", "ephemeralContainers"] {
        let containers = request
            .pointer(&format!("/pod/spec/{list}"))
            .and_then(serde_json::Value::as_array)
            .cloned()
            .unwrap_or_default();
        for c in containers {
            let image = c
                .get("image")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("");
            let last = image.rsplit('/').next().unwrap_or("");
            let tagged = if last.contains(':') || image.contains('@') {
                image.to_string()
            } else {
                format!("{image}:latest")
            };
            present.insert(tagged, serde_json::Value::String(format!("sha256:{image}")));
        }
    }
    serde_json::json!({ "present": present })
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let name = args.next().unwrap_or_else(|| "new".into());
    let times: usize = args.next().and_then(|t| t.parse().ok()).unwrap_or(200);
    let images = args.next().is_some_and(|a| a == "images");
    let Some(mut value) = podplan_benches::fixtures()
        .into_iter()
        .find(|f| f.name == name)
        .map(|f| f.request)
    else {
        eprintln!("plan_instructions: unknown fixture {name}");
        return ExitCode::FAILURE;
    };
    if images {
        // The API server defaults the pull policy; a pod without one is pulled like Always.
        for list in ["initContainers", "containers", "ephemeralContainers"] {
            let containers = value
                .pointer_mut(&format!("/pod/spec/{list}"))
                .and_then(serde_json::Value::as_array_mut);
            for c in containers.into_iter().flatten() {
                if let Some(o) = c.as_object_mut() {
                    o.entry("imagePullPolicy")
                        .or_insert_with(|| serde_json::Value::String("IfNotPresent".into()));
                }
            }
        }
        let report = all_present(&value);
        if let Some(o) = value.as_object_mut() {
            o.insert("images".into(), report);
        }
    }
    let request = match podplan_core::api::parse_request_value(value) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("plan_instructions: {}", e.message);
            return ExitCode::FAILURE;
        }
    };
    let steps = run_typed(&request, times);
    println!(
        "{name}{}: {times} plans, {steps} steps",
        if images { " (images)" } else { "" }
    );
    ExitCode::SUCCESS
}
