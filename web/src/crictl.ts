// CRI messages as crictl's config files want them. The plan carries CRI objects in
// proto3 JSON (lowerCamelCase names, enums by name). `crictl runp pod.json` and
// `crictl create <pod-id> container.json pod.json` decode files into the Go structs, so
// they need the proto field names (snake_case) and enum values as numbers.

import type { Json } from "./types";

/** Fields whose value is a map with user-chosen keys: keys are copied, not renamed. */
const MAP_FIELDS = new Set(["labels", "annotations", "sysctls", "unified"]);

/** Enum fields of runtime.v1 and their values by name. */
const NAMESPACE_MODE = { POD: 0, CONTAINER: 1, NODE: 2, TARGET: 3 };
const ENUMS: Record<string, Record<string, number>> = {
  network: NAMESPACE_MODE,
  pid: NAMESPACE_MODE,
  ipc: NAMESPACE_MODE,
  mode: NAMESPACE_MODE,
  protocol: { TCP: 0, UDP: 1, SCTP: 2 },
  propagation: { PROPAGATION_PRIVATE: 0, PROPAGATION_HOST_TO_CONTAINER: 1, PROPAGATION_BIDIRECTIONAL: 2 },
  profile_type: { RuntimeDefault: 0, Unconfined: 1, Localhost: 2 },
  supplemental_groups_policy: { Merge: 0, Strict: 1 },
};

export function snakeCase(key: string): string {
  return key.replace(/([a-z0-9])([A-Z])/g, "$1_$2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2").toLowerCase();
}

/** Converts a proto3-JSON CRI object to the form crictl's config loader reads. */
export function toCrictl(value: Json, parentKey = ""): Json {
  if (Array.isArray(value)) return value.map((v) => toCrictl(v, parentKey));
  if (value && typeof value === "object") {
    if (MAP_FIELDS.has(parentKey)) return { ...value };
    const out: { [k: string]: Json } = {};
    for (const [k, v] of Object.entries(value)) {
      const key = snakeCase(k);
      const names = ENUMS[key];
      out[key] = typeof v === "string" && names && v in names ? names[v]! : toCrictl(v, key);
    }
    return out;
  }
  return value;
}
