//! The calls besides `plan` and `complete`: the runtime model and crictl conversion, each
//! in a typed form (Rust values in and out, [`PlanError`] for what cannot be done) and a
//! JSON form (text in, JSON text out), as the front ends export them (the JS build's
//! `simApply`, `simStep`, `simEvent`, `crictl` and their `…Json` forms are these).
//!
//! One shape for every JSON form, as for [`crate::plan_json`]: a JSON object in, a JSON
//! object out, or `{"error": {"kind", "path", "message"}}` with `path` naming the
//! offending field of the call (`request.pod.spec`, `plan.steps[2]`, `event`). The call
//! table is in [`crate::api`]'s docs.
//!
//! `hooks` is the simulated world's hook behaviour ([`HookControls`]:
//! `{postStartFails: [names], preStopFails: [names], preStopSeconds: {name: n}}`); the
//! caller keeps it between calls, as hook events change it and not the request.

use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use crate::cri::{ContainerConfig, PodSandboxConfig};
use crate::error::{ErrorEnvelope, PlanError};
use crate::limits::MAX_REQUEST_BYTES;
use crate::plan::{Plan, Step};
use crate::request::PlanRequest;
use crate::sim::{self, Event, HookControls};

/// The largest JSON call accepted: a request and a plan for it.
pub(crate) const MAX_CALL_BYTES: usize = 4 * MAX_REQUEST_BYTES;

/// [`sim_apply`]'s input: a request and its plan.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SimApply {
    /// The request the plan was made for; its `now` is when the plan is carried out.
    pub request: PlanRequest,
    /// The plan to carry out.
    pub plan: Plan,
    /// The simulated world's hook behaviour.
    pub hooks: HookControls,
}

/// [`sim_step`]'s input: a request and one step of its plan.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SimStep {
    /// The request; its `now` is when the step is carried out.
    pub request: PlanRequest,
    /// The step to carry out.
    pub step: Step,
    /// The step's position in its plan (`index` in JSON, default 0).
    pub index: u32,
    /// The hook waiting of the plan's steps before this one (`blockedMillis` in JSON,
    /// default 0).
    pub blocked_millis: u64,
    /// The simulated world's hook behaviour.
    pub hooks: HookControls,
}

/// What carrying out a plan ([`sim_apply`]) or one step ([`sim_step`]) gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SimAnswer {
    /// The next request (for [`sim_step`]: the request with the runtime status,
    /// actuated resources and `hookResults` after the step).
    pub request: PlanRequest,
    /// Whether the runtime changed (a PLEG event: the kubelet syncs again at once).
    pub changed: bool,
    /// How long carrying it out took (preStop hooks, stops waited for, image pulls).
    pub blocked_millis: u64,
}

/// [`sim_event`]'s input: a request, the hook behaviour and one scripted event.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct SimEvent {
    /// The request whose runtime the event changes.
    pub request: PlanRequest,
    /// The simulated world's hook behaviour (hook events change it).
    pub hooks: HookControls,
    /// The event.
    pub event: Event,
}

/// What [`sim_event`] gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct SimEventAnswer {
    /// The request after the event.
    pub request: PlanRequest,
    /// The hook behaviour after the event.
    pub hooks: HookControls,
    /// Why the event could not happen (the request is then unchanged).
    pub note: Option<String>,
}

/// [`crictl`]'s input: one CRI config.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum CrictlConfig {
    /// A `RunPodSandbox` config (`sandboxConfig` in JSON).
    Sandbox(PodSandboxConfig),
    /// A `CreateContainer` config (`containerConfig` in JSON).
    Container(ContainerConfig),
}

/// Carries out a plan on the request's runtime state ([`sim::next_request_timed`] at the
/// request's `now`): the request of the next sync (runtime status, actuated resources,
/// back-off records and probes after the plan's steps, with the hooks' `hookResults`)
/// and how long the plan's steps took (preStop hooks and the stops they waited for,
/// image pulls; [`sim_step`]'s `blocked_millis` after the last step). The request keeps
/// `now`: the caller's clock moves by `blocked_millis` before the next sync.
///
/// # Errors
/// The request has no `now` (at `request.now`).
pub(crate) fn sim_apply(call: &SimApply) -> Result<SimAnswer, PlanError> {
    let now = required_now(&call.request, "plan")?;
    let (next, blocked_millis) =
        sim::next_request_timed(&call.request, &call.plan, now, &call.hooks);
    let changed = sim::relist_changed(&call.request, &next);
    Ok(SimAnswer {
        request: next,
        changed,
        blocked_millis,
    })
}

/// Carries out one step of a plan on the request's runtime state
/// ([`sim::Runtime::apply_step`] at the request's `now`). Applying a plan's steps in
/// order, each on the previous answer's request with the previous answer's
/// `blocked_millis`, gives the runtime and `hookResults` [`sim_apply`] gives with the
/// same `hooks`. Only the runtime status, the actuated resources and `hookResults` (those
/// of the plan's steps so far, from step 0) change; the sync's bookkeeping (back-off,
/// status, reason cache, probes, images) is [`sim_apply`]'s.
///
/// # Errors
/// The request has no `now` (at `request.now`).
pub(crate) fn sim_step(call: &SimStep) -> Result<SimAnswer, PlanError> {
    let request = &call.request;
    let now = required_now(request, "step")?;
    let mut runtime = sim::Runtime::from_request(request)
        .with_operations_done(call.index)
        .with_blocked_millis(call.blocked_millis)
        .with_hooks(call.hooks.clone());
    runtime.apply_step(&request.pod, &call.step, now);
    let outcome = runtime.into_outcome();
    let mut next = request.clone();
    next.runtime_status = Some(outcome.runtime_status);
    next.actuated_resources = outcome.actuated_resources;
    if call.index == 0 {
        next.hook_results.clear();
    }
    next.hook_results.extend(outcome.hook_results);
    let changed = sim::relist_changed(request, &next);
    Ok(SimAnswer {
        request: next,
        changed,
        blocked_millis: outcome.blocked_millis,
    })
}

/// Applies one scripted runtime event ([`sim::apply_event_with`]). A `note` says why the
/// event could not happen (the request is then unchanged).
#[must_use]
pub(crate) fn sim_event(call: SimEvent) -> SimEventAnswer {
    let SimEvent {
        mut request,
        mut hooks,
        event,
    } = call;
    let note = sim::apply_event_with(&mut request, &mut hooks, &event);
    SimEventAnswer {
        request,
        hooks,
        note,
    }
}

/// A CRI config as the file crictl reads (`crictl runp` / `crictl create`;
/// [`crate::config::crictl`]).
#[must_use]
pub(crate) fn crictl(config: &CrictlConfig) -> Value {
    match config {
        CrictlConfig::Sandbox(c) => crate::config::crictl::sandbox_json(c),
        CrictlConfig::Container(c) => crate::config::crictl::container_json(c),
    }
}

/// `sim_apply` on JSON: `{request, plan, hooks?}` → `{request, changed,
/// blockedMillis}`, or `{"error": …}`.
#[must_use]
pub fn sim_apply_json(input: &str) -> String {
    answer((|| {
        let mut call = object(input, &["request", "plan", "hooks"])?;
        let request = request(&mut call)?;
        let hooks = hooks(&mut call)?;
        required_now(&request, "plan")?;
        let plan: Plan = field(&mut call, "plan")?;
        let out = sim_apply(&SimApply {
            request,
            plan,
            hooks,
        })?;
        sim_answer_value(&out)
    })())
}

/// `sim_step` on JSON: `{request, step, index?, hooks?, blockedMillis?}` →
/// `{request, changed, blockedMillis}`, or `{"error": …}`. Each answer's
/// `blockedMillis` is the total to pass with the next step.
#[must_use]
pub fn sim_step_json(input: &str) -> String {
    answer((|| {
        let mut call = object(
            input,
            &["request", "step", "index", "hooks", "blockedMillis"],
        )?;
        let request = request(&mut call)?;
        required_now(&request, "step")?;
        let step: Step = field(&mut call, "step")?;
        let index: u32 = optional(&mut call, "index")?.unwrap_or(0);
        let blocked_millis: u64 = optional(&mut call, "blockedMillis")?.unwrap_or(0);
        let hooks = hooks(&mut call)?;
        let out = sim_step(&SimStep {
            request,
            step,
            index,
            blocked_millis,
            hooks,
        })?;
        sim_answer_value(&out)
    })())
}

/// `sim_event` on JSON: `{request, event, hooks?}` → `{request, hooks, note?}`, or
/// `{"error": …}`.
#[must_use]
pub fn sim_event_json(input: &str) -> String {
    answer((|| {
        let mut call = object(input, &["request", "event", "hooks"])?;
        let request = request(&mut call)?;
        let hooks = hooks(&mut call)?;
        let event: Event = field(&mut call, "event")?;
        let out = sim_event(SimEvent {
            request,
            hooks,
            event,
        });
        let mut value =
            json!({ "request": to_value(&out.request)?, "hooks": to_value(&out.hooks)? });
        if let (Some(note), Some(obj)) = (out.note, value.as_object_mut()) {
            obj.insert("note".into(), Value::String(note));
        }
        Ok(value)
    })())
}

/// `crictl` on JSON: `{sandboxConfig}` or `{containerConfig}` (CRI proto3 JSON) →
/// `{crictl}`, or `{"error": …}`.
#[must_use]
pub fn crictl_json(input: &str) -> String {
    answer((|| {
        let mut call = object(input, &["sandboxConfig", "containerConfig"])?;
        let config = match (
            call.contains_key("sandboxConfig"),
            call.contains_key("containerConfig"),
        ) {
            (true, false) => CrictlConfig::Sandbox(field(&mut call, "sandboxConfig")?),
            (false, true) => CrictlConfig::Container(field(&mut call, "containerConfig")?),
            _ => {
                return Err(PlanError::invalid(
                    "",
                    "give exactly one of `sandboxConfig` and `containerConfig`",
                ))
            }
        };
        Ok(json!({ "crictl": crictl(&config) }))
    })())
}

/// The request's `now`, which carrying out a `what` ("plan", "step") needs.
fn required_now(request: &PlanRequest, what: &str) -> Result<jiff::Timestamp, PlanError> {
    request.now.ok_or_else(|| {
        PlanError::invalid(
            "request.now",
            format!("the request needs `now`: the time the {what} is carried out"),
        )
    })
}

/// `{request, changed, blockedMillis}`.
fn sim_answer_value(out: &SimAnswer) -> Result<Value, PlanError> {
    Ok(json!({
        "request": to_value(&out.request)?,
        "changed": out.changed,
        "blockedMillis": out.blocked_millis,
    }))
}

/// Parses the call: a JSON object with only the `allowed` keys.
fn object(input: &str, allowed: &[&str]) -> Result<Map<String, Value>, PlanError> {
    if input.len() > MAX_CALL_BYTES {
        return Err(PlanError::limit(
            "",
            format!(
                "the call is {} bytes; the limit is {MAX_CALL_BYTES}",
                input.len()
            ),
        ));
    }
    let value: Value = serde_json::from_str(input)
        .map_err(|e| PlanError::invalid("", format!("the call is not JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(PlanError::invalid("", "the call must be a JSON object"));
    };
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(PlanError::invalid(
            unknown.clone(),
            format!(
                "unknown field `{unknown}`; expected one of {}",
                allowed.join(", ")
            ),
        ));
    }
    Ok(map)
}

/// The call's `request`, read as `plan` reads a request (strict, with paths).
fn request(call: &mut Map<String, Value>) -> Result<PlanRequest, PlanError> {
    let value = call
        .remove("request")
        .ok_or_else(|| PlanError::invalid("request", "missing field `request`"))?;
    super::parse_request_value(value).map_err(|mut e| {
        e.path = if e.path.is_empty() {
            "request".into()
        } else {
            format!("request.{}", e.path)
        };
        e
    })
}

/// The optional `hooks` of a call (default: every hook succeeds at once).
fn hooks(call: &mut Map<String, Value>) -> Result<HookControls, PlanError> {
    // `null` counts as absent.
    Ok(optional::<Option<HookControls>>(call, "hooks")?
        .flatten()
        .unwrap_or_default())
}

/// A required field of the call.
fn field<T: DeserializeOwned>(call: &mut Map<String, Value>, name: &str) -> Result<T, PlanError> {
    let value = call
        .remove(name)
        .ok_or_else(|| PlanError::invalid(name, format!("missing field `{name}`")))?;
    // Through the API's reader (not `from_value`): one family of deserialisers in the
    // wasm module.
    super::from_json_text(&value.to_string())
        .map_err(|e| PlanError::invalid(name, format!("`{name}` cannot be read: {e}")))
}

/// An optional field of a call (`None` when absent).
fn optional<T: DeserializeOwned>(
    call: &mut Map<String, Value>,
    name: &str,
) -> Result<Option<T>, PlanError> {
    if call.contains_key(name) {
        field(call, name).map(Some)
    } else {
        Ok(None)
    }
}

fn to_value<T: serde::Serialize>(value: &T) -> Result<Value, PlanError> {
    crate::json_value::to_json_value(value)
        .map_err(|e| PlanError::invalid("", format!("could not serialise the answer: {e}")))
}

fn answer(result: Result<Value, PlanError>) -> String {
    let value = match result {
        Ok(value) => value,
        Err(error) => to_value(&ErrorEnvelope { error })
            .unwrap_or_else(|_| json!({"error": {"kind": "InvalidInput", "path": "", "message": "could not serialise an error"}})),
    };
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    const REQUEST: &str = r#"{"pod": {"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
        "spec": {"containers": [{"name": "a", "image": "x"}]}}, "apiDefaults": true,
        "now": "2025-01-01T00:00:00Z"}"#;

    fn started() -> Value {
        let plan = String::from_utf8(crate::plan_json(REQUEST.as_bytes())).unwrap();
        parse(&sim_apply_json(&format!(
            r#"{{"request": {REQUEST}, "plan": {plan}}}"#
        )))
    }

    #[test]
    fn apply_carries_out_the_plan_as_core_sim_does() {
        let out = started();
        let request = &out["request"];
        assert_eq!(
            request["runtimeStatus"]["sandboxStatuses"][0]["state"],
            "SANDBOX_READY"
        );
        assert_eq!(
            request["runtimeStatus"]["containerStatuses"][0]["state"],
            "running"
        );
        // The answer is a request the engine accepts again.
        let again = crate::plan_value(request.clone());
        assert!(again.get("error").is_none(), "{again}");
    }

    #[test]
    fn steps_one_by_one_give_the_runtime_of_the_whole_plan() {
        // A pod with an init container, a sidecar and a regular container: sandbox,
        // node files, creates and starts at one instant.
        let request: Value = parse(
            r#"{"pod": {"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
            "spec": {"initContainers": [{"name": "i", "image": "x"},
                                        {"name": "s", "image": "y", "restartPolicy": "Always"}],
                     "containers": [{"name": "a", "image": "z",
                                     "resources": {"requests": {"cpu": "100m"}}}]}},
            "apiDefaults": true, "now": "2025-01-01T00:00:00Z"}"#,
        );
        let plan = crate::plan_value(request.clone());
        let steps = plan["steps"].as_array().unwrap().clone();
        assert!(steps.len() >= 3, "{plan}");
        let whole = parse(&sim_apply_json(
            &json!({"request": request, "plan": plan}).to_string(),
        ));
        let mut current = request;
        for (index, step) in steps.iter().enumerate() {
            let out = parse(&sim_step_json(
                &json!({"request": current, "step": step, "index": index}).to_string(),
            ));
            assert!(out.get("error").is_none(), "{out}");
            current = out["request"].clone();
        }
        assert_eq!(current["runtimeStatus"], whole["request"]["runtimeStatus"]);
        assert_eq!(
            current["actuatedResources"],
            whole["request"]["actuatedResources"]
        );
        // One step changes the runtime (a PLEG event); a bad step is an error at `step`.
        let first = json!({"request": whole["request"], "step": {"op": "KillPod"}});
        assert_eq!(parse(&sim_step_json(&first.to_string()))["changed"], true);
        let bad = json!({"request": whole["request"], "step": {"op": "Dance"}});
        assert_eq!(
            parse(&sim_step_json(&bad.to_string()))["error"]["path"],
            "step"
        );
    }

    #[test]
    fn steps_one_by_one_with_hooks_give_what_sim_apply_gives() {
        // Two running containers with preStop and postStart hooks; both images change, so
        // one sync kills each (its preStop runs for a while) and starts it again, and b's
        // postStart fails (b is killed again at once).
        let hook = json!({"exec": {"command": ["true"]}});
        let pod = |image: &str| {
            json!({"metadata": {"name": "p", "namespace": "ns", "uid": "u"},
                "spec": {"containers": [
                    {"name": "a", "image": image, "lifecycle": {"preStop": hook, "postStart": hook}},
                    {"name": "b", "image": image, "lifecycle": {"preStop": hook, "postStart": hook}}]}})
        };
        let first = json!({"pod": pod("x"), "apiDefaults": true, "now": "2025-01-01T00:00:00Z"});
        let plan = crate::plan_value(first.clone());
        let started = parse(&sim_apply_json(
            &json!({"request": first, "plan": plan}).to_string(),
        ));
        let mut request = started["request"].clone();
        request["pod"] = pod("y");
        request["now"] = json!("2025-01-01T00:01:00Z");
        let plan = crate::plan_value(request.clone());
        let hooks = json!({"preStopSeconds": {"a": 3, "b": 2}, "postStartFails": ["b"]});
        let whole = parse(&sim_apply_json(
            &json!({"request": request, "plan": plan, "hooks": hooks}).to_string(),
        ));
        assert!(whole.get("error").is_none(), "{whole}");

        let mut current = request;
        let mut blocked = json!(0);
        for (index, step) in plan["steps"].as_array().unwrap().iter().enumerate() {
            let call = json!({"request": current, "step": step, "index": index,
                              "hooks": hooks, "blockedMillis": blocked});
            let out = parse(&sim_step_json(&call.to_string()));
            assert!(out.get("error").is_none(), "{out}");
            current = out["request"].clone();
            blocked = out["blockedMillis"].clone();
        }
        let results = whole["request"]["hookResults"].as_array().unwrap();
        assert!(
            results.iter().any(|r| r["hook"] == "postStart"),
            "{results:?}"
        );
        assert!(blocked.as_u64().unwrap() >= 3000, "{blocked}");
        // simApply answers the whole plan's time: what the steps one by one add up to.
        assert_eq!(whole["blockedMillis"], blocked);
        assert_eq!(current["hookResults"], whole["request"]["hookResults"]);
        assert_eq!(current["runtimeStatus"], whole["request"]["runtimeStatus"]);
    }

    #[test]
    fn events_change_the_request_or_say_why_not() {
        let request = started()["request"].clone();
        let call =
            json!({"request": request, "event": {"type": "exit", "container": "a", "code": 3}});
        let out = parse(&sim_event_json(&call.to_string()));
        assert_eq!(
            out["request"]["runtimeStatus"]["containerStatuses"][0]["exitCode"],
            3
        );
        assert!(out.get("note").is_none());
        let call = json!({"request": out["request"], "event": {"type": "exit", "container": "a", "code": 3}});
        let out = parse(&sim_event_json(&call.to_string()));
        assert!(out["note"].as_str().unwrap().contains("not running"));
    }

    #[test]
    fn the_pull_fails_control_goes_through_sim_event_and_sim_apply() {
        let request = parse(REQUEST);
        let call = json!({"request": request,
            "event": {"type": "pullFails", "image": "x", "fault": "notFound", "times": 1}});
        let out = parse(&sim_event_json(&call.to_string()));
        assert!(out.get("note").is_none(), "{out}");
        assert_eq!(
            out["request"]["images"]["registry"]["x"]["fault"],
            "notFound"
        );
        // The plan pulls; carrying it out fails the pull and re-plans at once.
        let request = out["request"].clone();
        let plan = crate::plan_value(request.clone());
        let pull = plan["steps"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["op"] == "PullImage");
        assert!(pull, "{plan}");
        let out = parse(&sim_apply_json(
            &json!({"request": request, "plan": plan}).to_string(),
        ));
        assert_eq!(out["changed"], true);
        let error = out["request"]["pullResults"][0]["error"].as_str().unwrap();
        assert!(error.contains("not found"), "{error}");
        let plan = crate::plan_value(out["request"].clone());
        assert_eq!(plan["errors"][0]["reason"], "ErrImagePull");
        // An image the pod does not use: a note.
        let call = json!({"request": parse(REQUEST),
            "event": {"type": "pullFails", "image": "y", "fault": "registryDown"}});
        assert!(parse(&sim_event_json(&call.to_string()))["note"].is_string());
    }

    #[test]
    fn bad_calls_are_structured_errors_with_paths() {
        for (input, path) in [
            ("nope", ""),
            ("[]", ""),
            (
                r#"{"request": {}, "event": {"type": "advance", "seconds": 1}}"#,
                "request",
            ),
            (
                r#"{"request": {"pod": {"spec": {"containers": [{"name": 3}]}}}, "event": {"type": "sandboxDies"}}"#,
                "request.pod.spec.containers[0].name",
            ),
            (
                &format!(r#"{{"request": {REQUEST}, "event": {{"type": "explode"}}}}"#),
                "event",
            ),
            (
                &format!(r#"{{"request": {REQUEST}, "event": {{"type": "sandboxDies"}}, "x": 1}}"#),
                "x",
            ),
        ] {
            let out = parse(&sim_event_json(input));
            assert_eq!(out["error"]["kind"], "InvalidInput", "{input}: {out}");
            assert_eq!(out["error"]["path"], path, "{input}: {out}");
        }
        let out = parse(&sim_apply_json(r#"{"request": {"pod": {}}, "plan": {}}"#));
        assert_eq!(out["error"]["path"], "request.now", "{out}");
        let out = parse(&crictl_json("{}"));
        assert_eq!(out["error"]["kind"], "InvalidInput");
    }

    #[test]
    fn hook_controls_travel_with_the_calls() {
        let request = json!({"pod": {"metadata": {"name": "p", "namespace": "d", "uid": "u"},
            "spec": {"containers": [{"name": "a", "image": "x",
                "lifecycle": {"postStart": {"exec": {"command": ["false"]}}}}]}},
            "apiDefaults": true, "now": "2025-01-01T00:00:00Z"});
        let call =
            json!({"request": request, "event": {"type": "postStartFails", "container": "a"}});
        let out = parse(&sim_event_json(&call.to_string()));
        assert_eq!(out["hooks"]["postStartFails"], json!(["a"]), "{out}");
        let plan = crate::plan_value(out["request"].clone());
        let call = json!({"request": out["request"], "plan": plan, "hooks": out["hooks"]});
        let next = parse(&sim_apply_json(&call.to_string()));
        let result = &next["request"]["hookResults"][0];
        assert_eq!(result["hook"], "postStart", "{next}");
        assert_eq!(result["error"], "command terminated with exit code 1");
        assert_eq!(
            next["request"]["runtimeStatus"]["containerStatuses"][0]["state"],
            "exited"
        );
        // Without the controls the hook succeeds.
        let call = json!({"request": out["request"], "plan": plan});
        let next = parse(&sim_apply_json(&call.to_string()));
        assert!(next["request"].get("hookResults").is_none(), "{next}");
        let out = parse(&sim_apply_json(
            &json!({"request": out["request"], "plan": plan, "hooks": {"nope": 1}}).to_string(),
        ));
        assert_eq!(out["error"]["path"], "hooks", "{out}");
    }

    #[test]
    fn crictl_converts_the_plan_configs() {
        let plan = parse(&String::from_utf8(crate::plan_json(REQUEST.as_bytes())).unwrap());
        let out = parse(&crictl_json(
            &json!({"sandboxConfig": plan["sandboxConfig"]}).to_string(),
        ));
        assert!(
            out["crictl"]["log_directory"]
                .as_str()
                .unwrap()
                .starts_with("/var/log/pods/"),
            "{out}"
        );
        let config = &plan["containerConfigs"][0]["config"];
        let out = parse(&crictl_json(
            &json!({"containerConfig": config}).to_string(),
        ));
        assert_eq!(out["crictl"]["metadata"]["name"], "a", "{out}");
    }

    #[test]
    fn the_typed_forms_answer_what_the_json_forms_answer() {
        let request = crate::api::parse_request(REQUEST.as_bytes()).unwrap();
        let plan = crate::plan(&request).unwrap();
        let typed = sim_apply(&SimApply {
            request: request.clone(),
            plan: plan.clone(),
            hooks: HookControls::default(),
        })
        .unwrap();
        let json = parse(&sim_apply_json(
            &json!({"request": parse(REQUEST), "plan": crate::plan_value(parse(REQUEST))})
                .to_string(),
        ));
        assert_eq!(to_value(&typed.request).unwrap(), json["request"]);
        assert_eq!(json!(typed.changed), json["changed"]);
        assert_eq!(json!(typed.blocked_millis), json["blockedMillis"]);
        // Without `now`: a typed error at `request.now`.
        let mut no_now = request;
        no_now.now = None;
        let err = sim_step(&SimStep {
            request: no_now,
            step: crate::plan::RunPodSandboxStep::default().into(),
            index: 0,
            blocked_millis: 0,
            hooks: HookControls::default(),
        })
        .unwrap_err();
        assert_eq!(err.path, "request.now");
        let converted = crictl(&CrictlConfig::Sandbox(plan.sandbox_config.clone().unwrap()));
        assert!(converted["log_directory"].is_string(), "{converted}");
    }
}
