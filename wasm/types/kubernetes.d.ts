// Hand-written declarations for podplan-wasm: the JSON helpers and the Kubernetes v1
// objects the contract carries. In Rust these are k8s-openapi types (v1_37), which
// typegen cannot read, so they are written here following the API server's JSON: only the
// fields the kubelet reads are spelled out, the rest are typed as plain JSON. The
// contract's own types are generated into ./contract.d.ts (`scripts/gen-types`).
//
// The engine rejects fields it does not know, so these types have no index signatures
// except for the many source kinds of a `v1.Volume` and the API container status.

// Shared JSON helpers.

/** Any JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** Any JSON object. */
export type JsonObject = { [key: string]: Json };
/** RFC 3339 time, e.g. `"2025-01-02T03:04:05Z"`. */
export type Time = string;
/** A Kubernetes quantity, e.g. `"100m"`, `"128Mi"`. */
export type Quantity = string;
/** Resource name → quantity. */
export type ResourceList = { [resource: string]: Quantity };

/** `v1.Service` (node context: the services the kubelet sees), as JSON. */
export type Service = JsonObject;
/** `v1.ConfigMap` (node context), as JSON. */
export type ConfigMap = JsonObject;
/** `v1.Secret` (node context), as JSON. */
export type Secret = JsonObject;

// ---------------------------------------------------------------------------------
// Kubernetes v1 objects (the fields the kubelet reads; others as JSON).

/** `v1.Pod`. */
export interface Pod {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
  spec?: PodSpec;
  status?: PodStatus;
}

/** `metav1.ObjectMeta`. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: Time;
  deletionTimestamp?: Time;
  deletionGracePeriodSeconds?: number;
  labels?: { [key: string]: string };
  annotations?: { [key: string]: string };
  ownerReferences?: JsonObject[];
  finalizers?: string[];
  managedFields?: JsonObject[];
  selfLink?: string;
}

/** `v1.PodSpec`. */
export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  ephemeralContainers?: EphemeralContainer[];
  restartPolicy?: "Always" | "OnFailure" | "Never" | "";
  terminationGracePeriodSeconds?: number;
  activeDeadlineSeconds?: number;
  dnsPolicy?: string;
  dnsConfig?: { nameservers?: string[]; searches?: string[]; options?: { name?: string; value?: string }[] };
  nodeName?: string;
  nodeSelector?: { [key: string]: string };
  hostNetwork?: boolean;
  hostPID?: boolean;
  hostIPC?: boolean;
  hostUsers?: boolean;
  shareProcessNamespace?: boolean;
  hostname?: string;
  hostnameOverride?: string;
  subdomain?: string;
  setHostnameAsFQDN?: boolean;
  hostAliases?: { ip: string; hostnames?: string[] }[];
  securityContext?: JsonObject;
  serviceAccountName?: string;
  serviceAccount?: string;
  automountServiceAccountToken?: boolean;
  enableServiceLinks?: boolean;
  imagePullSecrets?: { name?: string }[];
  os?: { name: string };
  overhead?: ResourceList;
  resources?: ResourceRequirements;
  resourceClaims?: JsonObject[];
  runtimeClassName?: string;
  priority?: number;
  priorityClassName?: string;
  preemptionPolicy?: string;
  schedulerName?: string;
  schedulingGates?: { name: string }[];
  readinessGates?: { conditionType: string }[];
  tolerations?: JsonObject[];
  affinity?: JsonObject;
  topologySpreadConstraints?: JsonObject[];
  volumes?: Volume[];
  evictionResponders?: JsonObject[];
  schedulingGroup?: JsonObject;
}

/** `v1.Volume`: a name and one source (typed as JSON). */
export interface Volume {
  name: string;
  [source: string]: Json | undefined;
}

/** `v1.Container`. */
export interface Container {
  name: string;
  image?: string;
  imagePullPolicy?: "Always" | "Never" | "IfNotPresent";
  command?: string[];
  args?: string[];
  workingDir?: string;
  ports?: ContainerPort[];
  env?: EnvVar[];
  envFrom?: JsonObject[];
  resources?: ResourceRequirements;
  resizePolicy?: { resourceName: string; restartPolicy: "NotRequired" | "RestartContainer" }[];
  /** `Always` marks an init container as a sidecar; on regular containers (with restart rules) any policy. */
  restartPolicy?: "Always" | "OnFailure" | "Never";
  restartPolicyRules?: ContainerRestartRule[];
  volumeMounts?: VolumeMount[];
  volumeDevices?: { name: string; devicePath: string }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: JsonObject;
  terminationMessagePath?: string;
  terminationMessagePolicy?: "File" | "FallbackToLogsOnError" | "";
  securityContext?: JsonObject;
  stdin?: boolean;
  stdinOnce?: boolean;
  tty?: boolean;
}

/** `v1.EphemeralContainer`. */
export interface EphemeralContainer extends Omit<Container, "restartPolicy"> {
  targetContainerName?: string;
  restartPolicy?: string;
}

/** `v1.ContainerRestartRule`. */
export interface ContainerRestartRule {
  action: "Restart" | "RestartAllContainers";
  exitCodes?: { operator: "In" | "NotIn"; values?: number[] };
}

/** `v1.ContainerPort`. */
export interface ContainerPort {
  containerPort: number;
  hostPort?: number;
  hostIP?: string;
  name?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
}

/** `v1.EnvVar`. */
export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: JsonObject;
}

/** `v1.VolumeMount`. */
export interface VolumeMount {
  name: string;
  mountPath: string;
  subPath?: string;
  subPathExpr?: string;
  readOnly?: boolean;
  recursiveReadOnly?: "Disabled" | "IfPossible" | "Enabled";
  mountPropagation?: "None" | "HostToContainer" | "Bidirectional";
}

/** `v1.Probe` (the kubelet only tests for presence when deciding). */
export interface Probe {
  exec?: { command?: string[] };
  httpGet?: JsonObject;
  tcpSocket?: JsonObject;
  grpc?: JsonObject;
  initialDelaySeconds?: number;
  timeoutSeconds?: number;
  periodSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
  terminationGracePeriodSeconds?: number;
}

/** `v1.ResourceRequirements`. */
export interface ResourceRequirements {
  limits?: ResourceList;
  requests?: ResourceList;
  claims?: { name: string; request?: string }[];
}

/** `v1.PodStatus` (only `conditions` is read by a rule; the rest is accepted as JSON). */
export interface PodStatus {
  conditions?: { type: string; status: "True" | "False" | "Unknown"; reason?: string; message?: string; lastTransitionTime?: Time; lastProbeTime?: Time; observedGeneration?: number }[];
  phase?: string;
  qosClass?: string;
  message?: string;
  reason?: string;
  nominatedNodeName?: string;
  hostIP?: string;
  hostIPs?: { ip: string }[];
  podIP?: string;
  podIPs?: { ip: string }[];
  startTime?: Time;
  observedGeneration?: number;
  resize?: string;
  resources?: ResourceRequirements;
  allocatedResources?: ResourceList;
  initContainerStatuses?: ApiContainerStatus[];
  containerStatuses?: ApiContainerStatus[];
  ephemeralContainerStatuses?: ApiContainerStatus[];
  resourceClaimStatuses?: JsonObject[];
  extendedResourceClaimStatus?: JsonObject;
  nodeAllocatableResourceClaimStatuses?: JsonObject[];
  volumeHealth?: JsonObject[];
}

/** `v1.ContainerState`: at most one of the three is set. */
export interface ApiContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: Time };
  terminated?: { exitCode: number; signal?: number; reason?: string; message?: string; startedAt?: Time; finishedAt?: Time; containerID?: string };
}

/** `v1.ContainerStatus` (the fields the kubelet sets; the rest is accepted as JSON). */
export interface ApiContainerStatus {
  name: string;
  state?: ApiContainerState;
  lastState?: ApiContainerState;
  ready: boolean;
  restartCount: number;
  image: string;
  imageID: string;
  containerID?: string;
  started?: boolean;
  /** `allocatedResources`, `resources`, `user`, `volumeMounts`, … as JSON. */
  [key: string]: unknown;
}

