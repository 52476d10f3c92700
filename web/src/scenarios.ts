// The gallery: ready pods, each with a few things to try.

import { convertText, type Format } from "./podtext";
import type { SimEvent } from "../../wasm/types/podplan";

export interface Scenario {
  id: string;
  title: string;
  /** One sentence: what this scenario shows. */
  summary: string;
  /** Things to try, in order. */
  tryThis: string[];
  /** Feature-gate overrides, if the scenario needs any. */
  gates?: Record<string, boolean>;
  /** Runtime events before the first sync (pull faults of the model registry). */
  before?: SimEvent[];
  yaml: string;
}

const meta = (name: string, uid: string) => `apiVersion: v1
kind: Pod
metadata:
  name: ${name}
  namespace: default
  uid: ${uid}
`;

export const SCENARIOS: Scenario[] = [
  {
    id: "plain",
    title: "Plain pod",
    summary: "One container, restartPolicy Always: the first sync creates the sandbox and starts it.",
    tryThis: ["Make web exit with code 0: Always restarts even a clean exit.", "Resync: a healthy running pod needs nothing."],
    yaml: `${meta("web", "7d3c1f60-0001-4000-8000-000000000001")}spec:
  containers:
  - name: web
    image: nginx:1.27
    ports:
    - containerPort: 80
`,
  },
  {
    id: "init",
    title: "Init containers",
    summary: "Two init containers run one at a time, in order, before the app starts.",
    tryThis: [
      "Make wait-for-db exit with 0: the next init container starts.",
      "Make migrate exit with 1: it is run again (the pod's policy is Always).",
      "Make migrate exit with 0: now the app starts.",
    ],
    yaml: `${meta("shop", "7d3c1f60-0002-4000-8000-000000000002")}spec:
  initContainers:
  - name: wait-for-db
    image: busybox:1.36
    command: ["sh", "-c", "until nc -z db 5432; do sleep 1; done"]
  - name: migrate
    image: shop/migrate:2.4
  containers:
  - name: shop
    image: shop/api:2.4
`,
  },
  {
    id: "sidecar",
    title: "Sidecar with startup probe",
    summary: "A sidecar (an init container with restartPolicy Always) must pass its startup probe before the next init container starts.",
    tryThis: [
      "Pass the startup probe of log-shipper: the next init container starts.",
      "Make setup exit with 0: the app starts, and the sidecar keeps running.",
      "Make log-shipper exit: sidecars are always restarted.",
    ],
    yaml: `${meta("api", "7d3c1f60-0003-4000-8000-000000000003")}spec:
  initContainers:
  - name: log-shipper
    image: fluent/fluent-bit:3.1
    restartPolicy: Always
    startupProbe:
      httpGet:
        path: /api/v1/health
        port: 2020
      periodSeconds: 2
      failureThreshold: 30
  - name: setup
    image: busybox:1.36
    command: ["sh", "-c", "cp /defaults/* /config/"]
  containers:
  - name: api
    image: example/api:1.0
`,
  },
  {
    id: "crashloop",
    title: "Crash loop with back-off",
    summary: "A container that keeps failing is restarted after growing waits: 10s, 20s, 40s … up to 5 minutes.",
    tryThis: [
      "Make worker exit with code 1: the first restart is immediate.",
      "Make it exit with 1 again: now the start is held back (CrashLoopBackOff).",
      "Advance to the back-off expiry: it starts again, and the next wait doubles.",
    ],
    yaml: `${meta("worker", "7d3c1f60-0004-4000-8000-000000000004")}spec:
  restartPolicy: Always
  containers:
  - name: worker
    image: busybox:1.36
    command: ["sh", "-c", "echo starting; exit 1"]
`,
  },
  {
    id: "liveness",
    title: "Liveness failure",
    summary: "When the liveness probe fails, the kubelet kills the container and starts it again.",
    tryThis: [
      "Fail the liveness probe of app: the kubelet acts only after failureThreshold failures periodSeconds apart, so the clock moves 3 × 10 = 30 s before the sync; then app is killed and restarted in the same sync.",
      "Fail it again: the restart now waits for the back-off.",
    ],
    yaml: `${meta("portal", "7d3c1f60-0005-4000-8000-000000000005")}spec:
  containers:
  - name: app
    image: example/portal:3.2
    livenessProbe:
      httpGet:
        path: /healthz
        port: 8080
      periodSeconds: 10
      failureThreshold: 3
`,
  },
  {
    id: "onfailure",
    title: "OnFailure pod finishing",
    summary: "A batch pod with restartPolicy OnFailure: failures are retried, success ends the pod.",
    tryThis: ["Make report exit with 1: it is restarted.", "Make report exit with 0: nothing is left to run, so the pod is stopped for good."],
    yaml: `${meta("report", "7d3c1f60-0006-4000-8000-000000000006")}spec:
  restartPolicy: OnFailure
  containers:
  - name: report
    image: example/report:1.0
    command: ["generate-report", "--month", "2026-01"]
`,
  },
  {
    id: "never",
    title: "Never pod finishing",
    summary: "restartPolicy Never: whatever the exit code, a container runs once; when all are done the pod stops.",
    tryThis: ["Make step-a exit with 1: it is not restarted; step-b keeps running.", "Make step-b exit with 0: the pod is stopped and no new sandbox is made."],
    yaml: `${meta("once", "7d3c1f60-0007-4000-8000-000000000007")}spec:
  restartPolicy: Never
  containers:
  - name: step-a
    image: busybox:1.36
  - name: step-b
    image: busybox:1.36
`,
  },
  {
    id: "image",
    title: "Image change",
    summary: "The kubelet hashes each container's name and image; a new image means kill and start again.",
    tryThis: ["In the editor, change the image of web to nginx:1.28 and press Apply: the container is killed and started again.", "Change its command instead: not hashed, so nothing happens."],
    yaml: `${meta("site", "7d3c1f60-0008-4000-8000-000000000008")}spec:
  containers:
  - name: web
    image: nginx:1.27
  - name: metrics
    image: example/metrics:0.9
`,
  },
  {
    id: "typo",
    title: "Image typo",
    summary: "The image name has a typo the registry does not know: from the first sync the pull fails (ErrImagePull), then waits (ImagePullBackOff).",
    tryThis: [
      "Resync: the pull of sync #0 failed, so the container waits with ErrImagePull.",
      "Advance to the back-off expiry: the kubelet pulls again, and fails again; the wait doubles (ImagePullBackOff).",
      "Fix the image to nginx:1.27 and Apply: the new image pulls and the container starts.",
    ],
    before: [{ type: "pullFails", image: "ngnix:1.27", fault: "notFound" }],
    yaml: `${meta("typo", "7d3c1f60-0014-4000-8000-000000000014")}spec:
  containers:
  - name: web
    image: ngnix:1.27
`,
  },
  {
    id: "pull",
    title: "Image pull takes time",
    summary: "The kubelet pulls a missing image inside the sync: the sync, and everything after it, waits for the pull; a failed pull takes the registry's answer.",
    tryThis: [
      "Sync #0 pulls example/model-server:3.1, which takes 45 s here: the timeline says “took 45s” and the PLEG sync that starts server (Run until stable) is at t=45s; its Pulled event says “in 45s”.",
      "Set “pull takes” to 5 s, press “remove from node”, then make server exit: the restart pulls again, and the clock moves 5 s.",
      "Press “not found”, remove the image and make server exit: the failed pull takes half a second (the clock moves 1 s), then ErrImagePull and ImagePullBackOff.",
    ],
    before: [
      { type: "removeImage", image: "example/model-server:3.1" },
      { type: "pullTakes", image: "example/model-server:3.1", seconds: 45 },
    ],
    yaml: `${meta("model", "7d3c1f60-0018-4000-8000-000000000018")}spec:
  containers:
  - name: server
    image: example/model-server:3.1
    imagePullPolicy: IfNotPresent
`,
  },
  {
    id: "sandbox",
    title: "Sandbox loss",
    summary: "If the pod sandbox dies or loses its IP, the kubelet kills the whole pod and creates a new sandbox.",
    tryThis: ["Press “Sandbox dies”: KillPod and CreateSandbox, with a SandboxChanged event.", "Press “Sandbox loses its IP”: the same, for a different reason."],
    yaml: `${meta("cache", "7d3c1f60-0009-4000-8000-000000000009")}spec:
  initContainers:
  - name: warmup
    image: busybox:1.36
  containers:
  - name: redis
    image: redis:7.4
  - name: exporter
    image: oliver006/redis_exporter:1.62
`,
  },
  {
    id: "ephemeral",
    title: "Ephemeral debug container",
    summary: "kubectl debug adds an ephemeral container to a running pod; the kubelet starts it once and never restarts it.",
    tryThis: [
      "Uncomment the ephemeralContainers block in the editor and press Apply: debugger starts.",
      "Make debugger exit: it is not restarted.",
    ],
    yaml: `${meta("checkout", "7d3c1f60-0010-4000-8000-000000000010")}spec:
  containers:
  - name: app
    image: example/checkout:5.1
  # Uncomment to attach a debug container (what kubectl debug adds), then Apply:
  # ephemeralContainers:
  # - name: debugger
  #   image: busybox:1.36
  #   command: ["sh"]
  #   stdin: true
  #   tty: true
  #   targetContainerName: app
`,
  },
  {
    id: "resize",
    title: "In-place resize",
    summary: "Changing CPU or memory can be applied to a running container; a resizePolicy can demand a restart instead. The kubelet reports the resize in the pod's status and events.",
    tryThis: [
      "Change cpu from 500m to 750m (requests and limits) and Apply: resized in place (UpdateContainerResources), no restart. The Events tab shows ResizeStarted (the allocation manager's, with the new resources); the Status tab shows the condition PodResizeInProgress.",
      "Resync: the actuated resources now match, so the kubelet clears PodResizeInProgress and records ResizeCompleted.",
      "Change memory from 256Mi to 512Mi and Apply: memory says RestartContainer, so app restarts; ResizeStarted, then ResizeCompleted on the next sync.",
    ],
    yaml: `${meta("calc", "7d3c1f60-0011-4000-8000-000000000011")}spec:
  containers:
  - name: app
    image: example/calc:2.0
    resizePolicy:
    - resourceName: cpu
      restartPolicy: NotRequired
    - resourceName: memory
      restartPolicy: RestartContainer
    resources:
      requests:
        cpu: 500m
        memory: 256Mi
      limits:
        cpu: 500m
        memory: 256Mi
`,
  },
  {
    id: "rules",
    title: "Restart rules",
    summary: "Container restart rules pick the action by exit code: restart just this container, or restart every container of the pod.",
    tryThis: [
      "Make trainer exit with 42: the rule says Restart, though its policy is Never.",
      "Make trainer exit with 1: no rule matches, so Never applies.",
      "Start over, and make trainer exit with 99: RestartAllContainers resets the whole pod.",
    ],
    yaml: `${meta("train", "7d3c1f60-0012-4000-8000-000000000012")}spec:
  restartPolicy: Never
  containers:
  - name: trainer
    image: example/trainer:0.7
    restartPolicy: Never
    restartPolicyRules:
    - action: Restart
      exitCodes:
        operator: In
        values: [42]
    - action: RestartAllContainers
      exitCodes:
        operator: In
        values: [99]
  - name: data-loader
    image: example/loader:0.7
`,
  },
  {
    id: "hooks",
    title: "Lifecycle hooks",
    summary: "postStart runs right after the start; preStop runs before each stop and eats into the grace period.",
    tryThis: [
      "Press “postStart fails”, then make api exit: the restart's hook fails, the kubelet kills api (FailedPostStartHook) and the start fails with PostStartHookError; crash-loop back-off follows.",
      "Set “preStop takes” to 12 s and edit the image: the kill's StopContainer gets 30 − 12 = 18 s, and the sync takes 12 s: Resync, and the next sync is at t=12s (RESTARTS 1 (0s ago)).",
      "Set it to 45 s: the kubelet stops waiting at 30 s and StopContainer gets the 2 s minimum.",
    ],
    yaml: `${meta("hooked", "7d3c1f60-0013-4000-8000-000000000013")}spec:
  terminationGracePeriodSeconds: 30
  containers:
  - name: api
    image: example/api:1.0
    lifecycle:
      postStart:
        exec:
          command: ["sh", "-c", "curl -sf localhost:8080/warm"]
      preStop:
        exec:
          command: ["sh", "-c", "drain --timeout 20s"]
`,
  },
  {
    id: "delete",
    title: "Delete a pod (Terminating, grace period, preStop, SIGKILL)",
    summary:
      "kubectl delete sets deletionTimestamp; the kubelet's pod worker then terminates the pod (Terminating): preStop hooks, SIGTERM, SIGKILL when the grace period runs out, sidecars last, then the cleanup and the pod is gone.",
    tryThis: [
      "Press “Run until stable”: the sidecar log-shipper starts, then web.",
      "Press “Delete pod” (grace period 20 s, the pod's): the next sync is SyncTerminatingPod, kubectl shows Terminating; web's preStop sleeps 5 s, then SIGTERM; log-shipper stops after web. Both exit on SIGTERM: exit code 143 (128 + 15), reason Error. The sync took 5 s on the clock.",
      "Resync: SyncTerminatedPod removes the containers and the sandbox; the API server deletes the pod.",
      "Start over, run until stable, set web's “exits after” to 60 s (it ignores SIGTERM), then delete: StopContainer gives web the 15 s left after its preStop, then the runtime SIGKILLs it: exit code 137 (128 + 9), while log-shipper still exits 143; the sync takes the whole 20 s grace period.",
    ],
    yaml: `${meta("shop-web", "7d3c1f60-0015-4000-8000-000000000015")}spec:
  terminationGracePeriodSeconds: 20
  initContainers:
  - name: log-shipper
    image: fluent/fluent-bit:3.1
    restartPolicy: Always
  containers:
  - name: web
    image: nginx:1.27
    lifecycle:
      preStop:
        sleep:
          seconds: 5
`,
  },
  {
    id: "gate",
    title: "Readiness gate",
    summary: "A pod with spec.readinessGates is Ready only when every container is ready and every gate's condition, which a controller (not the kubelet) sets in the pod's status, is True.",
    tryThis: [
      "Press “Run until stable”: web runs and ContainersReady is True, but Ready is False, reason ReadinessGatesNotReady: the gate's condition does not exist yet (Status tab).",
      "In the Pod panel, set the gate example.com/lb-ready True: the next sync reports Ready True.",
      "Set it False: Ready is False again (ReadinessGatesNotReady); the containers stay ready and nothing restarts.",
    ],
    yaml: `${meta("lb-web", "7d3c1f60-0019-4000-8000-000000000019")}spec:
  readinessGates:
  - conditionType: example.com/lb-ready
  containers:
  - name: web
    image: nginx:1.27
`,
  },
  {
    id: "oom",
    title: "OOMKilled",
    summary: "A container over its memory limit is killed by the kernel's OOM killer: exit code 137, reason OOMKilled; the kubelet restarts it like any other exit.",
    tryThis: [
      "Press “OOM-kill” on cruncher: it exits 137 (OOMKilled) and is restarted at once; the Status tab shows lastState terminated, reason OOMKilled.",
      "OOM-kill it again: now the restart waits for the crash-loop back-off (CrashLoopBackOff, 10 s).",
      "Advance to the back-off expiry: it starts again; the next wait doubles.",
    ],
    yaml: `${meta("cruncher", "7d3c1f60-0016-4000-8000-000000000016")}spec:
  containers:
  - name: cruncher
    image: example/cruncher:1.0
    resources:
      requests:
        memory: 64Mi
      limits:
        memory: 128Mi
`,
  },
  {
    id: "evict",
    title: "Evicted",
    summary: "Under memory pressure the kubelet's eviction manager evicts a pod: it is stopped with a 1 s grace period, its phase becomes Failed with reason Evicted, and it stays in the API.",
    tryThis: [
      "Press “Evict pod”: the next sync is SyncTerminatingPod with a 1 s grace period; kubectl shows Evicted (phase Failed, a DisruptionTarget condition).",
      "Resync: SyncTerminatedPod removes the containers and the sandbox; the pod object stays, Failed/Evicted, until someone deletes it.",
    ],
    yaml: `${meta("batch-job", "7d3c1f60-0017-4000-8000-000000000017")}spec:
  containers:
  - name: job
    image: busybox:1.36
    command: ["sh", "-c", "sleep 3600"]
`,
  },
];

export const DEFAULT_SCENARIO = "crashloop";

export function scenarioById(id: string): Scenario | undefined {
  return SCENARIOS.find((s) => s.id === id);
}

/** A scenario's pod text in the given format. */
export function scenarioText(id: string, format: Format): string | undefined {
  const s = scenarioById(id);
  if (!s) return undefined;
  return format === "yaml" ? s.yaml : convertText(s.yaml, "yaml", "json");
}
