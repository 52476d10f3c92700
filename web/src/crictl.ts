// CRI messages as crictl's config files want them. The plan carries CRI objects in
// proto3 JSON (lowerCamelCase names, enums by name). `crictl runp pod.json` and
// `crictl create <pod-id> container.json pod.json` decode files with encoding/json into
// the generated Go structs, so they need the structs' JSON tags (the proto field names:
// `log_directory`, `CDI_devices`, `uidMappings`) and enum values as numbers. This mirrors
// podplan's own converter (core config::crictl) for the CLI's --emit-crictl.

import type { Json } from "./types";

/** Fields whose value is a map with user-chosen keys: keys are copied, not renamed. */
const MAP_FIELDS = new Set(["labels", "annotations", "sysctls", "unified"]);

/** Proto field names that are not the plain snake_case of the JSON name. */
const SPECIAL_NAMES: Record<string, string> = { CDIDevices: "CDI_devices", uidMappings: "uidMappings", gidMappings: "gidMappings" };

const NAMESPACE_MODE = { POD: 0, CONTAINER: 1, NODE: 2, TARGET: 3 };
const SIGNALS = [
  "RUNTIME_DEFAULT", "SIGABRT", "SIGALRM", "SIGBUS", "SIGCHLD", "SIGCLD", "SIGCONT", "SIGFPE", "SIGHUP", "SIGILL", "SIGINT",
  "SIGIO", "SIGIOT", "SIGKILL", "SIGPIPE", "SIGPOLL", "SIGPROF", "SIGPWR", "SIGQUIT", "SIGSEGV", "SIGSTKFLT", "SIGSTOP",
  "SIGSYS", "SIGTERM", "SIGTRAP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG", "SIGUSR1", "SIGUSR2", "SIGVTALRM", "SIGWINCH",
  "SIGXCPU", "SIGXFSZ", "SIGRTMIN",
  ...Array.from({ length: 15 }, (_, i) => `SIGRTMINPLUS${i + 1}`),
  ...Array.from({ length: 14 }, (_, i) => `SIGRTMAXMINUS${14 - i}`),
  "SIGRTMAX",
];

/** Enum fields of runtime.v1 (by their JSON name) and their values by name. */
const ENUMS: Record<string, Record<string, number>> = {
  network: NAMESPACE_MODE,
  pid: NAMESPACE_MODE,
  ipc: NAMESPACE_MODE,
  mode: NAMESPACE_MODE,
  protocol: { TCP: 0, UDP: 1, SCTP: 2 },
  propagation: { PROPAGATION_PRIVATE: 0, PROPAGATION_HOST_TO_CONTAINER: 1, PROPAGATION_BIDIRECTIONAL: 2 },
  profileType: { RuntimeDefault: 0, Unconfined: 1, Localhost: 2 },
  supplementalGroupsPolicy: { Merge: 0, Strict: 1 },
  stopSignal: Object.fromEntries(SIGNALS.map((s, i) => [s, i])),
};

/** The proto field name for a proto3-JSON name. */
export function snakeCase(key: string): string {
  return SPECIAL_NAMES[key] ?? key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Standard base64 of a string's UTF-8 bytes. */
function base64OfText(text: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** `KeyValue.value` is `bytes` in the 1.37 cri-api: Go's encoding/json reads base64. The
 *  plan's readable form has the text, or `{base64}` for bytes that are not UTF-8. */
function envValue(v: Json): Json {
  if (typeof v === "string") return base64OfText(v);
  if (v && typeof v === "object" && !Array.isArray(v) && typeof v.base64 === "string") return v.base64;
  return v;
}

/** Converts a proto3-JSON CRI object to the form crictl's config loader reads. */
export function toCrictl(value: Json): Json {
  if (Array.isArray(value)) return value.map(toCrictl);
  if (value && typeof value === "object") {
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) {
      const names = ENUMS[k];
      if (k === "envs" && Array.isArray(v)) {
        out.envs = v.map((e) =>
          e && typeof e === "object" && !Array.isArray(e) && "value" in e ? { ...e, value: envValue(e.value as Json) } : e,
        );
        continue;
      }
      out[snakeCase(k)] = MAP_FIELDS.has(k) ? v : typeof v === "string" && names && v in names ? names[v]! : toCrictl(v);
    }
    return out;
  }
  return value;
}
