//! The wasm-bindgen exports for JavaScript (feature `js`; feature `js-plan` keeps only
//! `plan`, `planJson` and `version`, the first-paint module).
//!
//! Thin conversions only, around [`podplan_core::plan_json`] and the calls of
//! [`podplan_core::api::calls`] (the runtime model and crictl conversion; the call table
//! is in [`podplan_core::api`]). Nothing here throws: a value that cannot be converted
//! becomes an `{error: {...}}` answer.
//!
//! JS objects cross the boundary as JSON text, converted by the JS engine's own `JSON`
//! (not by walking the object from Rust): it reports cycles, `BigInt`s and runaway
//! nesting as catchable exceptions, where a recursive walk inside wasm would trap, and
//! it keeps a single copy of the request deserializers in the module.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// `JSON.stringify(value)`: a string, `undefined` (for `undefined`, functions,
    /// symbols), or an exception (cycles, `BigInt`, stack exhaustion).
    #[wasm_bindgen(js_namespace = JSON, js_name = stringify, catch)]
    fn json_stringify(value: &JsValue) -> Result<JsValue, JsValue>;

    /// `JSON.parse(text)`.
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn json_parse(text: &str) -> Result<JsValue, JsValue>;

    /// `String(value)`: for an exception, `"TypeError: ..."`.
    #[wasm_bindgen(js_name = String, catch)]
    fn js_string(value: &JsValue) -> Result<String, JsValue>;
}

/// Computes the plan for a request given as a JS object (the contract's JSON shape).
/// Returns the plan object, or `{error: {kind, path, message}}`; never throws.
/// `plan(request)` answers exactly what `JSON.parse(planJson(JSON.stringify(request)))`
/// answers.
#[wasm_bindgen]
pub fn plan(request: JsValue) -> JsValue {
    call_object(&request, "request", plan_json)
}

#[cfg(feature = "js")]
/// Carries out a plan on the request's runtime state with `podplan_core::sim`:
/// `{request, plan}` in, `{request, changed, blockedMillis}` out (the next sync's request,
/// whether the runtime changed, how long the plan's steps took), or `{error}`.
#[wasm_bindgen(js_name = simApply)]
pub fn sim_apply(call: JsValue) -> JsValue {
    call_object(&call, "call", sim_apply_json)
}

#[cfg(feature = "js")]
/// [`sim_apply`] on JSON text.
#[wasm_bindgen(js_name = simApplyJson)]
pub fn sim_apply_json(call: &str) -> String {
    podplan_core::api::calls::sim_apply_json(call)
}

#[cfg(feature = "js")]
/// Carries out one step of a plan (`core::sim::Runtime::apply_step`): `{request, step,
/// index?}` in, `{request, changed}` out, or `{error}`.
#[wasm_bindgen(js_name = simStep)]
pub fn sim_step(call: JsValue) -> JsValue {
    call_object(&call, "call", sim_step_json)
}

#[cfg(feature = "js")]
/// [`sim_step`] on JSON text.
#[wasm_bindgen(js_name = simStepJson)]
pub fn sim_step_json(call: &str) -> String {
    podplan_core::api::calls::sim_step_json(call)
}

#[cfg(feature = "js")]
/// Applies one scripted runtime event (`core::sim::Event`): `{request, event}` in,
/// `{request, note?}` out, or `{error}`.
#[wasm_bindgen(js_name = simEvent)]
pub fn sim_event(call: JsValue) -> JsValue {
    call_object(&call, "call", sim_event_json)
}

#[cfg(feature = "js")]
/// [`sim_event`] on JSON text.
#[wasm_bindgen(js_name = simEventJson)]
pub fn sim_event_json(call: &str) -> String {
    podplan_core::api::calls::sim_event_json(call)
}

#[cfg(feature = "js")]
/// A CRI config as the file crictl reads: `{sandboxConfig}` or `{containerConfig}` in,
/// `{crictl}` out, or `{error}`.
#[wasm_bindgen]
pub fn crictl(call: JsValue) -> JsValue {
    call_object(&call, "call", crictl_json)
}

#[cfg(feature = "js")]
/// [`crictl`] on JSON text.
#[wasm_bindgen(js_name = crictlJson)]
pub fn crictl_json(call: &str) -> String {
    podplan_core::api::calls::crictl_json(call)
}

/// Runs a text call on a JS object: `JSON.stringify`, the call, `JSON.parse`.
fn call_object(value: &JsValue, what: &str, call: fn(&str) -> String) -> JsValue {
    let text = match json_stringify(value) {
        Ok(text) => match text.as_string() {
            Some(text) => text,
            None => {
                return error_value(&format!(
                    "the {what} is not a JSON value (undefined, a function or a symbol)"
                ))
            }
        },
        Err(e) => {
            return error_value(&format!(
                "the {what} cannot be converted to JSON: {}",
                describe(&e)
            ))
        }
    };
    to_js(&call(&text))
}

/// Computes the plan for a request given as JSON text; answers JSON text (the plan, or
/// `{"error": {...}}`). Never throws.
#[wasm_bindgen(js_name = planJson)]
pub fn plan_json(request: &str) -> String {
    let answer = podplan_core::plan_json(request.as_bytes());
    String::from_utf8(answer).unwrap_or_else(|e| error_text(&format!("answer is not UTF-8: {e}")))
}

#[cfg(feature = "js")]
/// Completes a plan from the status of the sandbox it created: `{request, sandboxStatus}`
/// in, the plan with its `dependsOnNewSandbox` configs and file steps regenerated out (or
/// `{error}`); never throws (`podplan_core::complete_json`).
#[wasm_bindgen]
pub fn complete(input: JsValue) -> JsValue {
    match json_stringify(&input).ok().and_then(|t| t.as_string()) {
        Some(text) => to_js(&complete_json(&text)),
        None => error_value("the completion request cannot be converted to JSON"),
    }
}

#[cfg(feature = "js")]
/// [`complete`] on JSON text.
#[wasm_bindgen(js_name = completeJson)]
pub fn complete_json(input: &str) -> String {
    let answer = podplan_core::complete_json(input.as_bytes());
    String::from_utf8(answer).unwrap_or_else(|e| error_text(&format!("answer is not UTF-8: {e}")))
}

/// The version facts of this build: `{podplan, contract, kubernetes}`.
#[wasm_bindgen]
pub fn version() -> JsValue {
    let text = serde_json::to_string(&podplan_core::version())
        .unwrap_or_else(|e| error_text(&format!("could not serialise the version: {e}")));
    to_js(&text)
}

/// Parses JSON text this module produced into a JS value.
fn to_js(text: &str) -> JsValue {
    json_parse(text).unwrap_or(JsValue::NULL)
}

fn error_text(message: &str) -> String {
    serde_json::json!({"error": {"kind": "InvalidInput", "path": "", "message": message}})
        .to_string()
}

fn error_value(message: &str) -> JsValue {
    to_js(&error_text(message))
}

/// A JS exception as text (`"TypeError: ..."`).
fn describe(exception: &JsValue) -> String {
    js_string(exception).unwrap_or_else(|_| "an exception that cannot be shown".to_string())
}
