// Type-checked in CI (`npm run typecheck` in wasm/): typical use of the package's
// declarations through its published entry points. Not run.
import { crictl, plan, planJson, simApply, simEvent, simEventJson, simStep, version } from "podplan-wasm";
import type { ContainerStatus, Plan, PlanAnswer, PlanRequest } from "podplan-wasm";

const request: PlanRequest = {
  pod: {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name: "web", namespace: "default", uid: "u1" },
    spec: {
      restartPolicy: "Always",
      initContainers: [{ name: "proxy", image: "envoy", restartPolicy: "Always" }],
      containers: [
        {
          name: "app",
          image: "nginx",
          resources: { requests: { cpu: "100m" }, limits: { memory: "128Mi" } },
          livenessProbe: { exec: { command: ["true"] } },
        },
      ],
    },
  },
  runtimeStatus: {
    id: "u1",
    sandboxStatuses: [{ id: "s1", state: "SANDBOX_READY", network: { ip: "10.0.0.5" }, metadata: { attempt: 0 } }],
    containerStatuses: [{ id: "containerd://c1", name: "app", state: "exited", exitCode: 1, finishedAt: "2025-01-01T00:00:00Z" }],
  },
  probes: { "containerd://c1": { liveness: "failure" } },
  featureGates: { SidecarContainers: true },
  actuatedResources: { containers: { app: { requests: { cpu: "100m" } } } },
  now: "2025-01-01T00:00:05Z",
};

function describe(answer: PlanAnswer): string {
  if ("error" in answer) {
    const kind: "InvalidInput" | "LimitExceeded" = answer.error.kind;
    return `${kind} at ${answer.error.path}: ${answer.error.message}`;
  }
  const p: Plan = answer;
  const kills = Object.entries(p.actions.containersToKill).map(([id, k]) => `${id}=${k.name}:${k.reason}`);
  const resize = p.actions.containersToUpdate?.["memory"]?.map((u) => u.desired.memoryLimit - u.current.memoryLimit) ?? [];
  const steps = p.steps.map((s) => s.op).join(",");
  const why = p.decisions.map((d) => `${d.action}(${d.container ?? "pod"}): ${d.reason}`);
  const configs = (p.containerConfigs ?? []).map((c) => `${c.type}/${c.name}#${c.restartCount}:${c.config.image?.image ?? ""}`);
  return [kills, resize, steps, why, configs, p.sandboxConfig?.hostname ?? "", p.warnings?.length ?? 0].join(";");
}

describe(plan(request));
// A bare v1.Pod is a request too.
describe(plan({ spec: { containers: [{ name: "a" }] } }));
const text: string = planJson(JSON.stringify(request));
const v: { podplan: string; contract: string; kubernetes: string } = version();
void text;
void v;

// The runtime model and crictl conversion.
const first = plan(request);
if (!("error" in first)) {
  const applied = simApply({ request, plan: first });
  if (!("error" in applied)) {
    const next: PlanRequest = applied.request;
    const exited = simEvent({ request: next, event: { type: "exit", container: "app", code: 1 } });
    const note: string | undefined = "error" in exited ? exited.error.message : exited.note;
    void note;
  }
  // One step at a time: the same runtime as simApply.
  let current: PlanRequest = request;
  first.steps.forEach((step, index) => {
    const out = simStep({ request: current, step, index });
    if (!("error" in out)) current = out.request;
  });
  const file = crictl({ sandboxConfig: first.sandboxConfig ?? {} });
  if (!("error" in file)) void file.crictl["log_directory"];
}
void simEventJson(JSON.stringify({ request, event: { type: "advance", seconds: 10 } }));
// @ts-expect-error an event names its type
void simEvent({ request, event: { container: "app", code: 1 } });

// The declarations are strict where the engine is strict:
const badState: ContainerStatus = {
  // @ts-expect-error "stopped" is not a runtime container state
  state: "stopped",
};
void badState;
// @ts-expect-error unknown request fields are rejected by the engine, and by the types
const unknownField: PlanRequest = { pod: { spec: { containers: [] } }, podd: {} };
void unknownField;
// @ts-expect-error a container needs a name
const nameless: PlanRequest = { pod: { spec: { containers: [{ image: "x" }] } } };
void nameless;
