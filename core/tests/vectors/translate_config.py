#!/usr/bin/env python3
"""Development aid, not part of the build.

Writes our own config vectors (core/tests/vectors/config/<TestFunction>/NN-name.json): the
held-out cases of the kubelet test tables the vendored conformance/config vectors come from,
plus vectors for behaviours that no vendored vector covers (taken from further kubelet test
tables). Every vector is built from a vendored sibling of the same table (same conventions,
same node/pod scaffolding) and its expectation is the kubelet test's own expectation (or, where
the test asserts only part of the result, the rest is derived from the spec exactly as the
vendored siblings do); nothing is computed by podplan.

Usage: translate_config.py <repo root>   (rewrites core/tests/vectors/config/)
"""
import copy
import json
import os
import re
import shutil
import sys

ROOT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../..")
VENDORED = os.path.join(ROOT, "conformance/config")
OUT = os.path.join(ROOT, "core/tests/vectors/config")

WRITTEN = []


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def vendored(table, nn):
    d = os.path.join(VENDORED, table)
    for f in sorted(os.listdir(d)):
        if f.startswith("%02d-" % nn):
            with open(os.path.join(d, f)) as fh:
                return json.load(fh)
    raise SystemExit("no vendored %s/%02d" % (table, nn))


def write(table, nn, short, vector):
    name = "%02d-%s" % (nn, short)
    vector["name"] = "%s/%s" % (table, name)
    # keep the vendored key order: name, source, function, input, expected, compare, note
    ordered = {k: vector[k] for k in ("name", "source", "function", "input", "expected", "compare", "note") if k in vector}
    d = os.path.join(OUT, table)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, name + ".json")
    if os.path.exists(os.path.join(VENDORED, table, name + ".json")):
        raise SystemExit("%s is vendored" % path)
    with open(path, "w") as fh:
        json.dump(ordered, fh, indent=2, ensure_ascii=False)
        fh.write("\n")
    WRITTEN.append(vector["name"])


def derive(table, template_nn, nn, case_name, mutate, short=None, source=None):
    v = copy.deepcopy(vendored(table, template_nn))
    v["source"] = source or "kubelet %s: %s" % (table, case_name)
    mutate(v)
    write(table, nn, short or slug(case_name), v)


def add_note(v, text):
    v["note"] = (v.get("note", "") + " " + text).strip()


# ---------------------------------------------------------------------------------------
# TestCalculateLinuxResources (kuberuntime_container_linux_test.go @5ecddb65): 9 cases.
def calculate_linux_resources():
    t = "TestCalculateLinuxResources"

    def case(nn, name, template, cg, spok, cpu_req, cpu_lim, mem_lim, expected):
        def m(v):
            i = v["input"]
            i["cpuRequest"], i["cpuLimit"], i["memoryLimit"] = cpu_req, cpu_lim, mem_lim
            i["node"]["cgroupVersion"] = cg
            i["node"]["kubelet"]["singleProcessOOMKill"] = spok
            v["expected"] = expected
        derive(t, template, nn, name, m,
               short="%s-cgroup%s" % (slug(name), cg),
               source="kubelet %s: %s (cgroup %s, singleProcessOOMKill=%s)" % (t, name, cg, "true" if spok else "false"))

    oom = {"memory.oom.group": "1"}
    case(3, "RequestNilCPU", 8, "v1", False, None, "2", "0",
         {"cpuPeriod": 100000, "cpuQuota": 200000, "cpuShares": 2048, "memoryLimitInBytes": 0})
    case(6, "Request128MBLimit256MBSingleProcess", 5, "v2", True, "1", "2", "128Mi",
         {"cpuPeriod": 100000, "cpuQuota": 200000, "cpuShares": 1024, "memoryLimitInBytes": 134217728})
    case(7, "RequestNoMemory", 5, "v2", False, "2", "8", "0",
         {"cpuPeriod": 100000, "cpuQuota": 800000, "cpuShares": 2048, "memoryLimitInBytes": 0, "unified": oom})
    case(9, "RequestZeroCPU", 5, "v2", False, "0", "2", "0",
         {"cpuPeriod": 100000, "cpuQuota": 200000, "cpuShares": 2, "memoryLimitInBytes": 0, "unified": oom})


# ---------------------------------------------------------------------------------------
# TestGenerateLinuxContainerResources (same file): 6 cases.
def generate_linux_container_resources():
    t = "TestGenerateLinuxContainerResources"

    def m(v):
        i = v["input"]
        i["node"]["cgroupVersion"] = "v2"
        i["node"]["kubelet"]["singleProcessOOMKill"] = False
        v["expected"] = {"cpuShares": 256, "memoryLimitInBytes": 786432000, "oomScoreAdj": 970,
                         "unified": {"memory.oom.group": "1"}, "hugepageLimits": []}
    derive(t, 2, 5, "cgroupv2:requests & limits, cpu & memory, burstable qos", m)


# ---------------------------------------------------------------------------------------
# TestGenerateLinuxContainerResourcesWithSwap (same file): 20 cases.
GI = 1024 ** 3


def swap_for(request):
    # calcSwapForBurstablePods: int64(float64(request)/float64(capacity)*float64(swapCapacity))
    return int(float(request) / float(40 * GI) * float(5 * GI))


def generate_linux_container_resources_with_swap():
    t = "TestGenerateLinuxContainerResourcesWithSwap"
    burst = [{"requests": {"memory": "1Gi"}}, {"requests": {"memory": "2Gi"}}]
    burst_guaranteed = [{"requests": {"memory": "1Gi"}},
                        {"requests": {"memory": "2Gi"}, "limits": {"memory": "2Gi"}}]
    burst_norequests = [{"requests": {"memory": "1Gi"}}, {}]
    best_effort = [{}, {}]

    def res(shares, adj, mem=None, swap=None, v1swap=None):
        r = {"cpuShares": shares, "oomScoreAdj": adj, "hugepageLimits": []}
        if mem is not None:
            r["memoryLimitInBytes"] = mem
        if swap is not None:
            r["unified"] = {"memory.swap.max": swap}
        if v1swap is not None:
            r["memorySwapLimitInBytes"] = v1swap
        return r

    def case(nn, name, template, cg, available, gate, behavior, resources, expected, priority=None, note=None):
        def m(v):
            i = v["input"]
            for c, r in zip(i["pod"]["spec"]["containers"], resources):
                c["resources"] = copy.deepcopy(r)
            if priority is not None:
                i["pod"]["spec"]["priority"] = priority
            i["featureGates"] = {"NodeSwap": gate}
            i["node"]["cgroupVersion"] = cg
            i["node"]["swapControllerAvailable"] = available
            i["node"]["kubelet"]["memorySwapBehavior"] = behavior
            v["expected"] = expected
            if note:
                add_note(v, note)
        derive(t, template, nn, name, m)

    case(8, "Burstable QoS, cgroups v2, LimitedSwap, with a guaranteed container", 9, "v2", True, True,
         "LimitedSwap", burst_guaranteed,
         {"c1": res(2, 975, swap=str(swap_for(GI))),
          "c2": res(2, 950, mem=2 * GI, swap="0")},
         note="c2 (memory request = limit) gets no swap (the test expects 0 bytes for it).")
    case(11, "Swap disabled on node, cgroups v1, LimitedSwap, Burstable QoS", 12, "v1", False, True,
         "LimitedSwap", burst, {"c1": res(2, 975), "c2": res(2, 950)})
    case(13, "Swap disabled on node, NodeSwap feature gate turned off, cgroups v2, LimitedSwap", 15, "v2", False,
         False, "LimitedSwap", burst, {"c1": res(2, 975), "c2": res(2, 950)})
    case(14, "Swap disabled on node, With no swapBehavior - NoSwap should be the default", 15, "v2", False, True,
         "", best_effort, {"c1": res(2, 1000), "c2": res(2, 1000)})
    case(17, "Swap disabled on node, Burstable QoS, cgroups v2, LimitedSwap, with a guaranteed container", 15,
         "v2", False, True, "LimitedSwap", burst_guaranteed,
         {"c1": res(2, 975), "c2": res(2, 950, mem=2 * GI)})
    case(18, "Swap disabled on node, Burstable QoS, cgroups v2, LimitedSwap", 15, "v2", False, True,
         "LimitedSwap", burst, {"c1": res(2, 975), "c2": res(2, 950)})
    case(19, "Swap disabled on node, Burstable QoS, cgroups v2, LimitedSwap, with a container with no requests",
         15, "v2", False, True, "LimitedSwap", burst_norequests, {"c1": res(2, 975), "c2": res(2, 999)})
    case(20, "Best-effort QoS, cgroups v2, LimitedSwap, critical pod", 9, "v2", True, True, "LimitedSwap", burst,
         {"c1": res(2, 975, swap="0"), "c2": res(2, 950, swap="0")}, priority=2000000000,
         note="spec.priority = scheduling.SystemCriticalPriority (2000000000) makes the pod critical: "
              "no swap. It is not node-critical (no priorityClassName system-node-critical), so the "
              "OOM score adjustment stays the Burstable formula.")


# ---------------------------------------------------------------------------------------
# TestGetHugepageLimitsFromResources (same file): 6 cases.
def hugepage_limits():
    t = "TestGetHugepageLimitsFromResources"

    def case(nn, name, limits, expected):
        def m(v):
            v["input"]["resources"] = {"limits": limits}
            v["expected"] = {"hugepageLimits": expected}
        derive(t, 3, nn, name, m)

    case(4, "Skip1GB", {"hugepages-1GB": "2Gi"},
         [{"pageSize": "1GB", "limit": 0}, {"pageSize": "2MB", "limit": 0}])
    case(5, "Success2MBand1GB", {"cpu": "0", "hugepages-2Mi": "2Mi", "hugepages-1Gi": "2Gi"},
         [{"pageSize": "1GB", "limit": 2147483648}, {"pageSize": "2MB", "limit": 2097152}])


# ---------------------------------------------------------------------------------------
# TestMilliCPUToQuota / ...WithCustomCPUCFSQuotaPeriod (kuberuntime helpers_linux_test.go).
def milli_cpu_to_quota():
    def case(t, nn, name, milli, period, quota, template):
        def m(v):
            v["input"]["milliCPU"] = milli
            v["input"]["period"] = period
            v["expected"] = {"quota": quota}
        derive(t, template, nn, name, m)

    case("TestMilliCPUToQuota", 5, "200 input 20k quota and default period", 200, 100000, 20000, 6)
    t = "TestMilliCPUToQuotaWithCustomCPUCFSQuotaPeriod"
    case(t, 6, "500 input 50k quota and default period", 500, 100000, 50000, 5)
    case(t, 11, "9 input 10k period and default quota expected", 9, 10000, 1000, 9)
    case(t, 16, "1500 input 5000 period and 7500 expected quota", 1500, 5000, 7500, 15)


# ---------------------------------------------------------------------------------------
# TestExpandVolumeMountsWithSubpath (container/helpers_test.go): the 11 subPath cases.
def expand_subpath():
    t = "TestExpandVolumeMountsWithSubpath"

    def case(nn, name, mount, env, expected):
        def m(v):
            v["input"]["volumeMount"] = mount
            v["input"]["env"] = env
            v["expected"] = expected
        derive(t, 9 if "error" in expected else 6, nn, name, m)

    case(4, "volumes expanded with no envs subpath", {"subPathExpr": "/foo/$(POD_NAME)"}, [],
         {"error": {"message": "missing value for POD_NAME"}})
    case(5, "volumes expanded with leading environment variable", {"subPathExpr": "$(POD_NAME)/bar"},
         [{"name": "POD_NAME", "value": "foo"}], {"subPath": "foo/bar"})
    case(7, "volumes with volume and no subpath", {"mountPath": "/foo"},
         [{"name": "POD_NAME", "value": "foo"}], {"subPath": ""})
    case(8, "subpaths with empty environment variable", {"subPathExpr": "foo/$(POD_NAME)/$(ANNOTATION)"},
         [{"name": "ANNOTATION", "value": ""}], {"error": {"message": "missing value for ANNOTATION, POD_NAME"}})


# ---------------------------------------------------------------------------------------
# TestMapping / TestMappingDual (third_party/forked/golang/expansion/expand_test.go): 37 cases.
MAPPING_CASES = [
    ("whole string", "$(VAR_A)", "A"),
    ("repeat", "$(VAR_A)-$(VAR_A)", "A-A"),
    ("beginning", "$(VAR_A)-1", "A-1"),
    ("middle", "___$(VAR_B)___", "___B___"),
    ("end", "___$(VAR_C)", "___C"),
    ("compound", "$(VAR_A)_$(VAR_B)_$(VAR_C)", "A_B_C"),
    ("escape & expand", "$$(VAR_B)_$(VAR_A)", "$(VAR_B)_A"),
    ("compound escape", "$$(VAR_A)_$$(VAR_B)", "$(VAR_A)_$(VAR_B)"),
    ("mixed in escapes", "f000-$$VAR_A", "f000-$VAR_A"),
    ("backslash escape ignored", "foo\\$(VAR_C)bar", "foo\\Cbar"),
    ("backslash escape ignored", "foo\\\\$(VAR_C)bar", "foo\\\\Cbar"),
    ("lots of backslashes", "foo\\\\\\\\$(VAR_A)bar", "foo\\\\\\\\Abar"),
    ("nested var references", "$(VAR_A$(VAR_B))", "$(VAR_A$(VAR_B))"),
    ("nested var references second type", "$(VAR_A$(VAR_B)", "$(VAR_A$(VAR_B)"),
    ("value is a reference", "$(VAR_REF)", "$(VAR_A)"),
    ("value is a reference x 2", "%%$(VAR_REF)--$(VAR_REF)%%", "%%$(VAR_A)--$(VAR_A)%%"),
    ("empty var", "foo$(VAR_EMPTY)bar", "foobar"),
    ("unterminated expression", "foo$(VAR_Awhoops!", "foo$(VAR_Awhoops!"),
    ("expression without operator", "f00__(VAR_A)__", "f00__(VAR_A)__"),
    ("shell special vars pass through", "$?_boo_$!", "$?_boo_$!"),
    ("bare operators are ignored", "$VAR_A", "$VAR_A"),
    ("undefined vars are passed through", "$(VAR_DNE)", "$(VAR_DNE)"),
    ("multiple (even) operators, var undefined", "$$$$$$(BIG_MONEY)", "$$$(BIG_MONEY)"),
    ("multiple (even) operators, var defined", "$$$$$$(VAR_A)", "$$$(VAR_A)"),
    ("multiple (odd) operators, var undefined", "$$$$$$$(GOOD_ODDS)", "$$$$(GOOD_ODDS)"),
    ("multiple (odd) operators, var defined", "$$$$$$$(VAR_A)", "$$$A"),
    ("missing open expression", "$VAR_A)", "$VAR_A)"),
    ("shell syntax ignored", "${VAR_A}", "${VAR_A}"),
    ("trailing incomplete expression not consumed", "$(VAR_B)_______$(A", "B_______$(A"),
    ("trailing incomplete expression, no content, is not consumed", "$(VAR_C)_______$(", "C_______$("),
    ("operator at end of input string is preserved", "$(VAR_A)foobarzab$", "Afoobarzab$"),
    ("shell escaped incomplete expr", "foo-\\$(VAR_A", "foo-\\$(VAR_A"),
    ("lots of $( in middle", "--$($($($($--", "--$($($($($--"),
    ("lots of $( in beginning", "$($($($($--foo$(", "$($($($($--foo$("),
    ("lots of $( at end", "foo0--$($($($(", "foo0--$($($($("),
    ("escaped operators in variable names are not escaped", "$(foo$$var)", "$(foo$$var)"),
    ("newline not expanded", "\n", "\n"),
]


def mapping():
    for t in ("TestMapping", "TestMappingDual"):
        present = {int(f[:2]) for f in os.listdir(os.path.join(VENDORED, t))}
        for nn, (name, inp, out) in enumerate(MAPPING_CASES, start=1):
            if nn in present:
                # the vendored copy must agree with the table as read here
                v = vendored(t, nn)
                assert v["input"]["input"] == inp and v["expected"]["output"] == out, (t, nn)
                continue

            def m(v, inp=inp, out=out):
                v["input"]["input"] = inp
                v["expected"] = {"output": out}
            derive(t, 1, nn, name, m)


# ---------------------------------------------------------------------------------------
# TestShouldContainerBeRestarted (container/helpers_test.go): 5 containers x 3 policies,
# then the same 15 with the pod marked deleted.
def should_container_be_restarted():
    t = "TestShouldContainerBeRestarted"
    names = ["no-history", "alive", "succeed", "failed", "unknown"]
    policies = ["Never", "OnFailure", "Always"]
    live = {"no-history": [True] * 3, "alive": [False] * 3, "succeed": [False, False, True],
            "failed": [False, True, True], "unknown": [True] * 3}
    present = {int(f[:2]) for f in os.listdir(os.path.join(VENDORED, t))}
    nn = 0
    for deleted in (False, True):
        for c in names:
            for i, p in enumerate(policies):
                nn += 1
                expected = False if deleted else live[c][i]
                if nn in present:
                    v = vendored(t, nn)
                    assert v["expected"]["restart"] == expected and v["input"]["containerName"] == c, nn
                    continue
                template = 26 if deleted else 11

                def m(v, c=c, p=p, expected=expected):
                    v["input"]["pod"]["spec"]["restartPolicy"] = p
                    v["input"]["containerName"] = c
                    v["expected"] = {"restart": expected}
                name = "container %s, restartPolicy %s%s" % (c, p, ", pod marked deleted" if deleted else "")
                short = ("deleted-" if deleted else "") + "%s-%s" % (c, p.lower())
                derive(t, template, nn, name, m, short=short)


# ---------------------------------------------------------------------------------------
# TestHasPrivilegedContainer (container/helpers_test.go): 4 cases for containers, 4 for init.
def has_privileged_container():
    t = "TestHasPrivilegedContainer"

    def m(v):
        v["input"]["pod"]["spec"]["initContainers"] = [{"name": "", "securityContext": {}}]
        v["expected"] = {"privileged": False}
    derive(t, 5, 6, "nil privileged (initContainers)", m, short="initcontainers-nil-privileged")


# ---------------------------------------------------------------------------------------
# TestGetAppArmorProfile / TestGetImageUser (kuberuntime helpers_test.go).
def apparmor_and_image_user():
    def m(v):
        v["input"]["pod"]["spec"]["securityContext"]["appArmorProfile"] = {"type": "Localhost", "localhostProfile": "test"}
        v["expected"] = {"apparmor": {"profileType": "Localhost", "localhostRef": "test"},
                         "apparmorProfile": "localhost/test"}
    derive("TestGetAppArmorProfile", 3, 4, "localhost", m)

    def m2(v):
        v["input"]["imageStatus"] = {"uid": None, "username": "testUser"}
        v["expected"] = {"uid": None, "username": "testUser"}
    derive("TestGetImageUser", 1, 2,
           "image with username and no uid should return ((*int64)nil, imageStatus.Username, nil)", m2)


# ---------------------------------------------------------------------------------------
# TestGeneratePodSandboxLinuxConfigSeccomp (kuberuntime_sandbox_linux_test.go): 5 cases.
def sandbox_seccomp():
    t = "TestGeneratePodSandboxLinuxConfigSeccomp"

    def m_pod(v):
        v["input"]["pod"]["spec"]["securityContext"] = {"seccompProfile": {"type": "Unconfined"}}
        v["note"] = "newSeccompPod(podField=Unconfined): the pod-level seccomp field is ignored for the sandbox, whose profile is always RuntimeDefault."
    derive(t, 1, 2, "seccomp field defined at pod level should not be honoured", m_pod)

    def m_ctr(v):
        v["input"]["pod"]["spec"]["containers"][0]["securityContext"] = {"seccompProfile": {"type": "Unconfined"}}
        v["note"] = "newSeccompPod(containerField=Unconfined): container seccomp fields are ignored for the sandbox, whose profile is always RuntimeDefault."
    derive(t, 1, 3, "seccomp field defined at container level should not be honoured", m_ctr)


# ---------------------------------------------------------------------------------------
# TestMakeEnvironmentVariables (kubelet_pods_test.go): 31 cases.
def make_environment_variables():
    t = "TestMakeEnvironmentVariables"
    kube = [("KUBERNETES_SERVICE_HOST", "1.2.3.1"), ("KUBERNETES_SERVICE_PORT", "8081"),
            ("KUBERNETES_PORT", "tcp://1.2.3.1:8081"), ("KUBERNETES_PORT_8081_TCP", "tcp://1.2.3.1:8081"),
            ("KUBERNETES_PORT_8081_TCP_PROTO", "tcp"), ("KUBERNETES_PORT_8081_TCP_PORT", "8081"),
            ("KUBERNETES_PORT_8081_TCP_ADDR", "1.2.3.1")]
    test_svc = [("TEST_SERVICE_HOST", "1.2.3.3"), ("TEST_SERVICE_PORT", "8083"),
                ("TEST_PORT", "tcp://1.2.3.3:8083"), ("TEST_PORT_8083_TCP", "tcp://1.2.3.3:8083"),
                ("TEST_PORT_8083_TCP_PROTO", "tcp"), ("TEST_PORT_8083_TCP_PORT", "8083"),
                ("TEST_PORT_8083_TCP_ADDR", "1.2.3.3")]

    def env(pairs):
        return {"env": [{"name": n, "value": val} for n, val in sorted(pairs)]}

    # 04: api server = Y, kubelet = N (nil service lister)
    def m4(v):
        v["input"]["node"]["services"] = []
        v["expected"] = env([("FOO", "BAR")] + test_svc)
    derive(t, 3, 4, "api server = Y, kubelet = N", m4)

    # 18: secretkeyref_missing_optional
    def m18(v):
        v["input"]["pod"]["spec"]["containers"][0]["env"] = [
            {"name": "POD_NAME", "valueFrom": {"secretKeyRef": {"name": "missing-secret", "key": "key", "optional": True}}}]
        v["expected"] = env(kube)
    derive(t, 16, 18, "secretkeyref_missing_optional", m18)

    # 22: configmap, service env vars
    def m22(v):
        v["input"]["pod"]["spec"]["enableServiceLinks"] = True
        v["expected"] = env([("TEST_LITERAL", "test-test-test"), ("REPLACE_ME", "FROM_CONFIG_MAP"),
                             ("EXPANSION_TEST", "FROM_CONFIG_MAP"), ("DUPE_TEST", "ENV_VAR"),
                             ("p_REPLACE_ME", "FROM_CONFIG_MAP"), ("p_DUPE_TEST", "CONFIG_MAP")] + test_svc + kube)
    derive(t, 20, 22, "configmap, service env vars", m22)

    # 23: configmap_missing (error)
    def m23(v):
        v["input"]["pod"]["spec"]["containers"][0] = {"envFrom": [{"configMapRef": {"name": "test-config-map"}}]}
        v["expected"] = {"error": {"reason": "CreateContainerConfigError",
                                   "message": "configmaps \"configmap-name\" not found"}}
    derive(t, 28, 23, "configmap_missing", m23)



# =======================================================================================
# Further kubelet tables, for config behaviours no vendored vector covers. They reuse the
# existing generator functions; each vector is built on a vendored sibling of the function.


def sandbox_vector(table, nn, name, pod_meta, pod_spec, kubelet, expected, note, host_dns=None,
                   node_ips=None, compare="subset", short=None, source=None):
    def m(v):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": pod_spec}
        v["input"]["pod"] = pod
        v["input"]["attempt"] = 0
        node = v["input"]["node"]
        node["kubelet"].update(kubelet)
        if host_dns is not None:
            node["hostDNS"] = host_dns
        if node_ips is not None:
            node["nodeIPs"] = node_ips
        v["expected"] = expected
        v["compare"] = compare
        v["note"] = note
    derive_as(table, "TestGeneratePodSandboxConfig", 1, nn, name, m, short=short, source=source)


def derive_as(table, template_table, template_nn, nn, case_name, mutate, short=None, source=None):
    v = copy.deepcopy(vendored(template_table, template_nn))
    v["source"] = source or "kubelet %s: %s" % (table, case_name)
    mutate(v)
    write(table, nn, short or slug(case_name), v)


# TestTruncatePodHostname (kubelet_pods_test.go): truncatePodHostnameIfNeeded("test-pod", input).
def truncate_pod_hostname():
    t = "TestTruncatePodHostname"
    cases = [
        ("valid hostname", "test.pod.hostname", "test.pod.hostname"),
        ("too long hostname",
         "1234567.1234567.1234567.1234567.1234567.1234567.1234567.1234567.1234567.",
         "1234567.1234567.1234567.1234567.1234567.1234567.1234567.1234567"),
        ("hostname end with .",
         "1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456.1234567.",
         "1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456"),
        ("hostname end with -",
         "1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456-1234567.",
         "1234567.1234567.1234567.1234567.1234567.1234567.1234567.123456"),
    ]
    for nn, (name, inp, out) in enumerate(cases, start=1):
        sandbox_vector(
            t, nn, name, {"name": inp, "namespace": "new", "uid": "12345678"},
            {"containers": [{"name": "foo", "image": "busybox"}]}, {},
            {"config": {"hostname": out}},
            "The Go test calls truncatePodHostnameIfNeeded directly; here the input is the pod "
            "name (the hostname when spec.hostname is empty; spec.hostname itself must be a "
            "DNS label, so it cannot carry these dotted names) and the result is the sandbox "
            "hostname. The table is a Go map: NN is the position in the source.")


# TestGetNodenameForKernel (pkg/kubelet/util/util_test.go).
def nodename_for_kernel():
    t = "TestGetNodenameForKernel"
    short_domain = ("subdomain", "new", "local")             # subdomain.new.svc.local
    long_domain = ("1234567", "1234567", "1234567.1234567.1234567.1234567.123")  # 55 chars
    cases = [
        ("no hostDomain, setHostnameAsFQDN false", "test.pod.hostname", None, False, "test.pod.hostname"),
        ("no hostDomain, setHostnameAsFQDN true", "test.pod.hostname", None, True, "test.pod.hostname"),
        ("valid hostDomain, setHostnameAsFQDN false", "test.pod.hostname", short_domain, False, "test.pod.hostname"),
        ("valid hostDomain, setHostnameAsFQDN true", "test.pod.hostname", short_domain, True,
         "test.pod.hostname.subdomain.new.svc.local"),
        ("FQDN is too long, setHostnameAsFQDN false", "1234567.1234567", long_domain, False, "1234567.1234567"),
        ("FQDN is too long, setHostnameAsFQDN true", "1234567.1234567", long_domain, True, None),
    ]
    for nn, (name, host, dom, fqdn, out) in enumerate(cases, start=1):
        ns = dom[1] if dom else "new"
        spec = {"containers": [{"name": "foo", "image": "busybox"}], "setHostnameAsFQDN": fqdn}
        kubelet = {}
        if dom:
            spec["subdomain"] = dom[0]
            kubelet["clusterDomain"] = dom[2]
        meta = {"name": host, "namespace": ns, "uid": "12345678"}
        note = ("The Go test passes (hostname, hostDomain) directly; here the hostname is the pod "
                "name and the domain is built the kubelet's way, <subdomain>.<namespace>.svc."
                "<clusterDomain>: the test's 'svc.subdomain.local' becomes 'subdomain.new.svc.local' "
                "and its 55-character domain '1234567.1234567.svc.' + a 35-character cluster "
                "domain, so the FQDN lengths (41 and 71) match the test's.")
        if out is None:
            expected = {"error": {"contains": "is too long (64 characters is the max, 71 characters requested)"}}
            sandbox_vector(t, nn, name, meta, spec, kubelet, expected,
                           note + " The test asserts only that an error occurs; the text is GetNodenameForKernel's.",
                           compare="errorContains")
        else:
            sandbox_vector(t, nn, name, meta, spec, kubelet, {"config": {"hostname": out}}, note)


# pkg/kubelet/network/dns/dns_test.go, through the sandbox's dnsConfig.
def dns(servers=(), searches=(), options=()):
    return {"config": {"dnsConfig": {"servers": list(servers), "searches": list(searches), "options": list(options)}}}


DNS_NOTE_OPTIONS = ("Options are listed sorted by name: the kubelet rebuilds merged options from a "
                    "Go map (the test compares them as a set).")


def pod_dns_type():
    t = "TestGetPodDNSType"
    cluster = dns(["203.0.113.1"], ["testNS.svc.TEST", "svc.TEST", "TEST"], ["ndots:5"])
    host = dns(["127.0.0.1"], ["."])
    cases = [
        ("valid DNSClusterFirst without hostnetwork", True, False, "ClusterFirst", cluster),
        ("valid DNSClusterFirstWithHostNet with hostnetwork", True, True, "ClusterFirstWithHostNet", cluster),
        ("valid DNSClusterFirstWithHostNet without hostnetwork", True, False, "ClusterFirstWithHostNet", cluster),
        ("valid DNSDefault without hostnetwork", False, False, "Default", host),
        ("valid DNSDefault with hostnetwork", False, True, "Default", host),
        ("DNSClusterFirst with hostnetwork, fallback to DNSDefault", True, True, "ClusterFirst", host),
        ("valid DNSNone", False, False, "None", dns()),
        ("invalid DNS policy, should return error", False, False, "invalidPolicy", host),
    ]
    for nn, (name, has_dns, hostnet, policy, expected) in enumerate(cases, start=1):
        note = ("The Go test checks getPodDNSType's type; here the type shows through GetPodDNS "
                "(configurer: cluster domain TEST, resolvConf \"\" so the host type gives "
                "127.0.0.1 / '.', cluster DNS 203.0.113.1 only where the test sets it).")
        if policy == "invalidPolicy":
            note += (" getPodDNSType returns an error for an unknown policy; GetPodDNS logs it and "
                     "falls back to ClusterFirst, which without cluster DNS servers falls through "
                     "to the host type (MissingClusterDNS).")
        sandbox_vector(t, nn, name, {"name": "test_pod", "namespace": "testNS", "annotations": {}},
                       {"containers": [{"name": "foo"}], "dnsPolicy": policy, "hostNetwork": hostnet},
                       {"clusterDomain": "TEST", "clusterDNS": ["203.0.113.1"] if has_dns else [], "resolvConf": ""},
                       expected, note)


def pod_dns():
    t = "TestGetPodDNS"
    pods = [("ClusterFirstWithHostNet", True), ("ClusterFirst", True), ("ClusterFirst", False), ("Default", True)]
    host_dns = {"servers": ["192.168.1.1"], "searches": ["example.com"], "options": ["ndots:1"]}
    nn = 0
    for with_resolv in (False, True):
        for i, (policy, hostnet) in enumerate(pods):
            nn += 1
            cluster = policy == "ClusterFirstWithHostNet" or (policy == "ClusterFirst" and not hostnet)
            if cluster:
                searches = [".svc.kubernetes.io", "svc.kubernetes.io", "kubernetes.io"]
                if with_resolv:
                    searches += host_dns["searches"]
                expected = dns(["203.0.113.1"], searches, ["ndots:5"])
            elif with_resolv:
                expected = dns(host_dns["servers"], host_dns["searches"], host_dns["options"])
            else:
                expected = dns(["127.0.0.1"], ["."])
            name = "pod%d %s%s%s" % (i, policy, " hostNetwork" if hostnet else "",
                                     ", resolvConf /etc/resolv.conf" if with_resolv else ", resolvConf \"\"")
            note = ("newTestPods: no namespace, so the first search is '.svc.kubernetes.io'. The test "
                    "asserts the name servers and the first search (and, with a resolv.conf, that the "
                    "cluster searches are prepended to the host's); the rest follows GetPodDNS. It runs "
                    "once with ExpandedDNSConfig off and once on; 1.37 has only the expanded limits, "
                    "which these cases do not reach.")
            kubelet = {"clusterDomain": "kubernetes.io", "clusterDNS": ["203.0.113.1"],
                       "resolvConf": "/etc/resolv.conf" if with_resolv else ""}
            if with_resolv:
                note += (" The test reads the machine's /etc/resolv.conf; this vector states one "
                         "(node.hostDNS).")
            sandbox_vector(t, nn, name, {"name": "pod%d" % i, "uid": str(10000 + i)},
                           {"containers": [{"name": "foo"}], "dnsPolicy": policy, "hostNetwork": hostnet},
                           kubelet, expected, note, host_dns=host_dns if with_resolv else None,
                           short=slug(name))


def pod_dns_custom():
    t = "TestGetPodDNSCustom"
    cfg = {"nameservers": ["10.0.0.11"], "searches": ["my.domain"],
           "options": [{"name": "ndots", "value": "3"}, {"name": "debug"}]}
    merged_opts = ["debug", "ndots:3"]
    ns_svc, svc, dom, hostdom = "testNS.svc.kubernetes.io", "svc.kubernetes.io", "kubernetes.io", "host.domain"
    cases = [
        ("DNSNone without DNSConfig should have empty DNS settings", False, "None", None, dns()),
        ("DNSNone with DNSConfig should have a merged DNS settings", False, "None",
         {"nameservers": ["203.0.113.1"], "searches": ["my.domain", "second.domain"],
          "options": [{"name": "ndots", "value": "3"}, {"name": "debug"}]},
         dns(["203.0.113.1"], ["my.domain", "second.domain"], merged_opts)),
        ("DNSClusterFirst with DNSConfig should have a merged DNS settings", False, "ClusterFirst", cfg,
         dns(["10.0.0.10", "10.0.0.11"], [ns_svc, svc, dom, hostdom, "my.domain"], merged_opts)),
        ("DNSClusterFirstWithHostNet with DNSConfig should have a merged DNS settings", True,
         "ClusterFirstWithHostNet", cfg,
         dns(["10.0.0.10", "10.0.0.11"], [ns_svc, svc, dom, hostdom, "my.domain"], merged_opts)),
        ("DNSDefault with DNSConfig should have a merged DNS settings", False, "Default", cfg,
         dns(["8.8.8.8", "10.0.0.11"], [hostdom, "my.domain"], merged_opts)),
    ]
    for nn, (name, hostnet, policy, pcfg, expected) in enumerate(cases, start=1):
        spec = {"containers": [{"name": "foo"}], "dnsPolicy": policy, "hostNetwork": hostnet}
        if pcfg is not None:
            spec["dnsConfig"] = pcfg
        sandbox_vector(t, nn, name, {"name": "test_pod", "namespace": "testNS"}, spec,
                       {"clusterDomain": "kubernetes.io", "clusterDNS": ["10.0.0.10"],
                        "resolvConf": "/etc/resolv.conf"},
                       expected,
                       "The test's resolv.conf holds 'nameserver 8.8.8.8' and 'search host.domain' "
                       "(node.hostDNS). " + DNS_NOTE_OPTIONS,
                       host_dns={"servers": ["8.8.8.8"], "searches": ["host.domain"], "options": []})


def form_dns_search_fits_limits():
    t = "TestFormDNSSearchFitsLimits"
    l2048 = ["A" * 128] + ["A" * 127] * 15
    base3 = ["testNS.svc.TEST", "svc.TEST", "TEST"]
    n32 = base3 + [str(i) for i in range(4, 33)]
    cases = [
        ("valid: 3 search paths", base3, base3, False),
        ("valid: 5 search paths", base3 + ["AAA", "BBB"], base3 + ["AAA", "BBB"], False),
        ("invalid: longer than 256 characters in search path list", base3 + ["AAA", "B" * 256, "BBB"],
         base3 + ["AAA", "BBB"], False),
        ("valid ExpandedDNSConfig: 2048 characters in search path list", l2048, l2048, True),
        ("invalid ExpandedDNSConfig: 2050 characters in search path list", l2048 + ["B"], l2048, True),
        ("invalid ExpandedDNSConfig: 256 characters search path", base3 + ["AAA", "B" * 256, "BBB"],
         base3 + ["AAA", "BBB"], True),
        ("invalid: 7 search paths", base3 + ["AAA", "BBB", "CCC", "DDD"],
         base3 + ["AAA", "BBB", "CCC", "DDD"], False),
        ("valid ExpandedDNSConfig: 32 search paths", n32, n32, True),
        ("invalid ExpandedDNSConfig: 33 search paths", n32 + ["33"], n32, True),
    ]
    for nn, (name, given, kept, expanded) in enumerate(cases, start=1):
        note = ("formDNSSearchFitsLimits is reached through GetPodDNS with dnsPolicy Default: the "
                "search list is the host resolv.conf's (node.hostDNS), which the kubelet does not "
                "de-duplicate. The 'DNSConfigForming' event is not part of the output.")
        if not expanded:
            note += (" The test runs this case with ExpandedDNSConfig off (legacy limits: 6 paths, "
                     "256 characters); 1.37 has no such gate and always applies the expanded limits "
                     "(32 paths, 2048 characters, 253 per path)")
            if name == "invalid: 7 search paths":
                note += ", so all 7 paths are kept (the test, legacy, expects 6)."
            else:
                note += ", which give the same result here."
        sandbox_vector(t, nn, name, {"name": "test_pod", "namespace": "testNS", "annotations": {}},
                       {"containers": [{"name": "foo"}], "dnsPolicy": "Default"},
                       {"clusterDomain": "TEST", "resolvConf": "/etc/resolv.conf"},
                       {"config": {"dnsConfig": {"searches": kept}}}, note,
                       host_dns={"servers": [], "searches": given, "options": []})


def form_dns_nameservers_fits_limits():
    t = "TestFormDNSNameserversFitsLimits"
    cases = [
        ("valid: 1 nameserver", ["127.0.0.1"], ["127.0.0.1"]),
        ("valid: 3 nameservers", ["127.0.0.1", "10.0.0.10", "8.8.8.8"], ["127.0.0.1", "10.0.0.10", "8.8.8.8"]),
        ("invalid: 4 nameservers, trimmed to 3", ["127.0.0.1", "10.0.0.10", "8.8.8.8", "1.2.3.4"],
         ["127.0.0.1", "10.0.0.10", "8.8.8.8"]),
    ]
    for nn, (name, given, kept) in enumerate(cases, start=1):
        sandbox_vector(t, nn, name, {"name": "test_pod", "namespace": "testNS", "annotations": {}},
                       {"containers": [{"name": "foo"}], "dnsPolicy": "Default"},
                       {"clusterDomain": "TEST", "resolvConf": "/etc/resolv.conf"},
                       {"config": {"dnsConfig": {"servers": kept}}},
                       "formDNSNameserversFitsLimits is reached through GetPodDNS with dnsPolicy Default "
                       "(the host resolv.conf's name servers, node.hostDNS). The event is not part of the output.",
                       host_dns={"servers": given, "searches": [], "options": []})


def merge_dns_options():
    t = "TestMergeDNSOptions"
    cases = [
        ("Empty dnsConfigOptions", None, ["debug", "ndots:5"]),
        ("No duplicated entries", [{"name": "single-request"}, {"name": "attempts", "value": "3"}],
         ["attempts:3", "debug", "ndots:5", "single-request"]),
        ("Overwrite duplicated entries", [{"name": "ndots", "value": "3"}, {"name": "debug"},
                                          {"name": "single-request"}, {"name": "attempts", "value": "3"}],
         ["attempts:3", "debug", "ndots:3", "single-request"]),
    ]
    for nn, (name, opts, merged) in enumerate(cases, start=1):
        pcfg = {} if opts is None else {"options": opts}
        sandbox_vector(t, nn, name, {"name": "test_pod", "namespace": "testNS"},
                       {"containers": [{"name": "foo"}], "dnsPolicy": "Default", "dnsConfig": pcfg},
                       {"resolvConf": "/etc/resolv.conf"},
                       {"config": {"dnsConfig": {"options": merged}}},
                       "mergeDNSOptions(existing, pod options) is reached through GetPodDNS: dnsPolicy "
                       "Default gives the host options ['ndots:5', 'debug'] (node.hostDNS) and the pod's "
                       "dnsConfig (present, so the merge runs even without options) adds its own. " + DNS_NOTE_OPTIONS,
                       host_dns={"servers": ["8.8.8.8"], "searches": [], "options": ["ndots:5", "debug"]})


# pkg/kubelet/qos/policy_test.go, through LinuxContainerResources.oomScoreAdj.
def oom_vector(table, nn, name, pod_spec, capacity, scores, gates, note, pod_status=None):
    def m(v):
        pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": pod_spec}
        if pod_status is not None:
            pod["status"] = pod_status
        v["input"] = {"pod": pod, "containerNames": list(scores), "featureGates": gates,
                      "node": {"memoryCapacity": capacity}}
        v["expected"] = {c: {"oomScoreAdj": s} for c, s in scores.items()}
        v["compare"] = "subset"
        v["note"] = note
    derive_as(table, "TestGenerateLinuxContainerResourcesWithSwap", 9, nn, name, m)


def container(name, requests=None, limits=None, restart_policy=None):
    c = {"name": name}
    res = {}
    if limits:
        res["limits"] = limits
    if requests:
        res["requests"] = requests
    c["resources"] = res
    if restart_policy:
        c["restartPolicy"] = restart_policy
    return c


def container_oom_score_adjust():
    t = "TestGetContainerOOMScoreAdjust"
    std = 8000000000
    mreq, mlim = str(std // 8), str(1000 + std // 8)
    preq, plim = str(std // 4), str(1000 + std // 4)
    sample = container("main-1", {"memory": mreq}, {"memory": mlim})
    init = container("init-container", {"memory": mreq}, {"memory": mlim})
    sidecar = container("sidecar-container", {"memory": mreq}, {"memory": mlim}, "Always")
    small = container("sidecar-small-container", {"memory": str(std // 20)}, {"memory": mlim}, "Always")
    big = container("sidecar-big-container", {"memory": str(std // 2)}, {"memory": mlim}, "Always")
    g5 = {"cpu": "5m", "memory": mreq}

    def plr(req_mem, lim_mem):
        return {"requests": {"cpu": "5m", "memory": req_mem}, "limits": {"cpu": "5m", "memory": lim_mem}}

    cases = [
        ("cpu-limit", {"containers": [container("cpu-limit", None, {"cpu": "10"})]}, 4000000000, {"cpu-limit": 999}, False),
        ("memory-limit-cpu-request", {"containers": [container("memory-limit-cpu-request", {"cpu": "0"}, {"memory": "10G"})]},
         8000000000, {"memory-limit-cpu-request": 999}, False),
        ("zero-memory-limit", {"containers": [container("zero-memory-limit", None, {"memory": "0"})]}, 7230457451,
         {"zero-memory-limit": 1000}, False),
        ("no-request-limit", {"containers": [container("no-request-limit")]}, 4000000000, {"no-request-limit": 1000}, False),
        ("equal-request-limit-cpu-memory", {"containers": [container("equal-request-limit-cpu-memory",
                                                                     {"memory": "10G", "cpu": "5m"}, {"cpu": "5m", "memory": "10G"})]},
         123456789, {"equal-request-limit-cpu-memory": -997}, False),
        ("cpu-unlimited-memory-limited-with-requests",
         {"containers": [container("cpu-unlimited-memory-limited-with-requests", {"memory": str(std // 2), "cpu": "5m"}, {"memory": "10G"})]},
         std, {"cpu-unlimited-memory-limited-with-requests": 500}, False),
        ("request-no-limit", {"containers": [container("request-no-limit", {"memory": str(std - 1), "cpu": "5m"})]},
         std, {"request-no-limit": 3}, False),
        ("cluster-critical", {"priorityClassName": "system-cluster-critical", "priority": 2000000000,
                              "containers": [container("cluster-critical")]}, 4000000000, {"cluster-critical": 1000}, False),
        ("node-critical", {"priorityClassName": "system-node-critical", "priority": 2000001000,
                           "containers": [container("node-critical")]}, 4000000000, {"node-critical": -997}, False),
        ("burstable-unique-container-pod", {"containers": [container("burstable-unique-container", {"memory": mreq}, {"memory": mlim})]},
         std, {"burstable-unique-container": 875}, False),
        ("burstable-mixed-unique-main-container-pod", {"initContainers": [init], "containers": [sample]}, std,
         {"init-container": 875, "main-1": 875}, False),
        ("burstable-mixed-multi-container-small-sidecar-pod", {"initContainers": [init, small], "containers": [sample]}, std,
         {"init-container": 875, "sidecar-small-container": 875, "main-1": 875}, False),
        ("burstable-mixed-multi-container-sample-request-pod", {"initContainers": [init, sidecar], "containers": [sample]}, std,
         {"init-container": 875, "sidecar-container": 875, "main-1": 875}, False),
        ("burstable-mixed-multi-container-big-sidecar-container-pod", {"initContainers": [init, big], "containers": [sample]}, std,
         {"init-container": 875, "sidecar-big-container": 500, "main-1": 875}, False),
        ("guaranteed-pod-resources-no-container-resources",
         {"resources": plr(preq, preq), "containers": [container("no-request-limit-1"), container("no-request-limit-2")]},
         4000000000, {"no-request-limit-1": -997, "no-request-limit-2": -997}, True),
        ("guaranteed-pod-resources-equal-container-resources",
         {"resources": plr(preq, preq), "containers": [container("guaranteed-container-1", g5, g5), container("guaranteed-container-2", g5, g5)]},
         4000000000, {"guaranteed-container-1": -997, "guaranteed-container-2": -997}, True),
        ("guaranteed-pod-resources-unequal-container-requests",
         {"resources": plr(preq, preq), "containers": [container("burstable-container", {"cpu": "3m", "memory": mreq}, {"cpu": "5m", "memory": mlim}),
                                                        container("best-effort-container")]},
         4000000000, {"burstable-container": -997, "best-effort-container": -997}, True),
        ("burstable-pod-resources-no-container-resources",
         {"resources": plr(preq, plim), "containers": [container("no-request-limit-1"), container("no-request-limit-2")]},
         4000000000, {"no-request-limit-1": 750, "no-request-limit-2": 750}, True),
        ("burstable-pod-resources-equal-container-requests",
         {"resources": plr(preq, plim), "containers": [container("guaranteed-container-1", g5, g5), container("guaranteed-container-2", g5, g5)]},
         4000000000, {"guaranteed-container-1": 750, "guaranteed-container-2": 750}, True),
        ("burstable-pod-resources-unequal-container-requests",
         {"resources": plr(preq, plim), "containers": [container("burstable-container", {"cpu": "3m", "memory": mreq}, {"cpu": "5m", "memory": mreq}),
                                                        container("best-effort-container")]},
         4000000000, {"burstable-container": 625, "best-effort-container": 875}, True),
        ("burstable-pod-resources-no-container-resources-with-sidecar",
         {"resources": plr(preq, plim), "containers": [container("no-request-limit")],
          "initContainers": [container("no-request-limit-sidecar", restart_policy="Always")]},
         4000000000, {"no-request-limit": 750, "no-request-limit-sidecar": 750}, True),
        ("burstable-pod-resources-equal-container-requests-with-sidecar",
         {"resources": plr(preq, plim), "containers": [container("burstable-container", g5, {"cpu": "5m", "memory": mlim})],
          "initContainers": [container("burstable-sidecar", g5, {"cpu": "5m", "memory": mlim}, "Always")]},
         4000000000, {"burstable-container": 750, "burstable-sidecar": 750}, True),
        ("burstable-pod-resources-unequal-container-requests-with-sidecar",
         {"resources": plr("2000000000", plim),
          "containers": [container("burstable-container-1", {"cpu": "5m", "memory": "1000000000"}, {"cpu": "5m", "memory": plim}),
                         container("burstable-container-2", {"cpu": "5m", "memory": "500000000"}, {"cpu": "5m", "memory": plim})],
          "initContainers": [container("burstable-sidecar", {"cpu": "5m", "memory": "200000000"}, {"cpu": "5m", "memory": plim}, "Always")]},
         4000000000, {"burstable-container-1": 725, "burstable-container-2": 850, "burstable-sidecar": 850}, True),
        ("burstable-pod-with-dra-disabled", {"containers": [container("c1", {"memory": "500Mi"})]}, 4000000000, {"c1": 869}, False),
    ]
    ranges = {"cpu-unlimited-memory-limited-with-requests": "495..505", "burstable-unique-container-pod": "875..880",
              "burstable-mixed-unique-main-container-pod": "875..880 for init-container",
              "burstable-mixed-multi-container-small-sidecar-pod": "875..880 for init-container",
              "burstable-mixed-multi-container-sample-request-pod": "875..880 for init-container",
              "burstable-mixed-multi-container-big-sidecar-container-pod": "875..880 for init-container"}
    for nn, (name, spec, cap, scores, plr_on) in enumerate(cases, start=1):
        note = ("GetContainerOOMScoreAdjust for every init and regular container, shown as "
                "LinuxContainerResources.oomScoreAdj. The table is a Go map: NN is the position in "
                "the source. Gates as the test sets them (PodLevelResources; DRANodeAllocatableResources "
                "and KubeletOOMScoreAdjTieBreak off, their defaults).")
        if name in ranges:
            note += " The test accepts a range (%s); the value is the exact formula result." % ranges[name]
        if name == "burstable-pod-with-dra-disabled":
            note += (" The test pod also carries status.nodeAllocatableResourceClaimStatuses (a DRA memory "
                     "claim), which the kubelet ignores with DRANodeAllocatableResources off; the field is "
                     "not in the v1.Pod model the contract uses, so it is left out. The DRA-enabled cases "
                     "of the table are not translated.")
        oom_vector(t, nn, name, spec, cap, scores, {"PodLevelResources": plr_on}, note)


def container_oom_score_adjust_tie_break():
    t = "TestGetContainerOOMScoreAdjustTieBreak"
    mi, gi, ti = 1 << 20, 1 << 30, 1 << 40

    def tb(name, req, lim=0, restart=None):
        return container(name, {"memory": str(req)}, {"memory": str(lim)} if lim else None, restart)

    side_pod = {"initContainers": [tb("sidecar", 50 * mi, 0, "Always")],
                "containers": [tb("small-bounded", 50 * mi, 50 * mi), tb("large-unbounded", 16 * gi)]}

    def plr_pod(limit):
        return {"resources": {"requests": {"memory": "2Gi"}, "limits": {"memory": limit}},
                "containers": [container("c", {"cpu": "100m"})]}

    cases = [
        ("16Gi node, 500Mi unlimited", 16 * gi, {"containers": [tb("c", 500 * mi)]}, "c", 970),
        ("16Gi node, 500Mi request equals limit", 16 * gi, {"containers": [tb("c", 500 * mi, 500 * mi)]}, "c", 970),
        ("1Ti node, 50Mi unlimited is below the floor", ti, {"containers": [tb("c", 50 * mi)]}, "c", 999),
        ("1Ti node, 500Mi unlimited", ti, {"containers": [tb("c", 500 * mi)]}, "c", 999),
        ("1Ti node, 4Gi unlimited hits the nudge cap", ti, {"containers": [tb("c", 4 * gi)]}, "c", 997),
        ("1Ti node, 16Gi unlimited", ti, {"containers": [tb("c", 16 * gi)]}, "c", 985),
        ("1Ti node, 500Mi request equals limit", ti, {"containers": [tb("c", 500 * mi, 500 * mi)]}, "c", 999),
        None,  # shared DRA memory claim: not translatable (status field outside the contract's v1.Pod)
        ("4Ti node, 500Mi unlimited", 4 * ti, {"containers": [tb("c", 500 * mi)]}, "c", 999),
        ("4Ti node, 64Gi unlimited", 4 * ti, {"containers": [tb("c", 64 * gi)]}, "c", 985),
        ("1Ti node, sidecar capped at the highest regular container", ti, side_pod, "sidecar", 999),
        ("1Ti node, pod-level limit above the container's share", ti, plr_pod("4Gi"), "c", 999),
        ("1Ti node, pod-level limit equal to the container's share", ti, plr_pod("2Gi"), "c", 999),
    ]
    for nn, case in enumerate(cases, start=1):
        if case is None:
            continue
        name, cap, spec, cname, off = case
        oom_vector(t, nn, "tieBreak=false/" + name, spec, cap, {cname: off}, {"PodLevelResources": True},
                   "The test's gate-off expectation (KubeletOOMScoreAdjTieBreak off, its default; the gate-on "
                   "nudge is not modelled). PodLevelResources on as the test sets it. Case 08 (a shared DRA "
                   "memory claim in pod status) is not translatable: the field is not in the contract's v1.Pod.")



# TestApplySandboxResources, newest generation (kuberuntime_sandbox_linux_test.go, ktesting):
# 9 cases; 01-03 are vendored.
def apply_sandbox_resources():
    t = "TestApplySandboxResources"
    oom = {"memory.oom.group": "1"}

    def m4(v):
        v["input"]["pod"]["spec"] = {"containers": [{"resources": {"requests": {"memory": "128Mi"},
                                                                  "limits": {"memory": "256Mi"}}}]}
        v["expected"] = {"resources": {"memoryLimitInBytes": 268435456, "cpuPeriod": 100000, "cpuQuota": 0,
                                       "cpuShares": 2, "unified": oom}, "overhead": {}}
    derive(t, 3, 4, "pod without overhead defined (cgroup v2)", m4, short="cgroupv2-pod-without-overhead-defined")

    dra_note = (" The test pod carries status.nodeAllocatableResourceClaimStatuses (a DRA claim for 200m "
                "CPU and 128Mi); the field is not in the contract's v1.Pod model and is left out.")

    def m7(v):
        v["input"]["pod"] = {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {"containers": [
            {"name": "c1", "resources": {"requests": {"memory": "128Mi", "cpu": "2"},
                                         "limits": {"memory": "256Mi", "cpu": "4"}}}]}}
        v["input"]["featureGates"] = {"PodLevelResources": False}
        v["expected"] = {"resources": {"memoryLimitInBytes": 268435456, "cpuPeriod": 100000, "cpuQuota": 400000,
                                       "cpuShares": 2048, "unified": oom}, "overhead": {}}
        v["note"] += (" With DRANodeAllocatableResources off (this case) the claim is ignored, so leaving it "
                      "out changes nothing." + dra_note)
    derive(t, 3, 7, "pod with DRA memory direct claims and feature disabled", m7,
           short="cgroupv2-pod-with-dra-memory-direct-claims-and-feature-disabled")

    def m8(v):
        v["input"]["pod"] = {"apiVersion": "v1", "kind": "Pod", "metadata": {}, "spec": {
            "resources": {"requests": {"cpu": "4", "memory": "512Mi"}, "limits": {"cpu": "8", "memory": "1Gi"}},
            "containers": [{"name": "c1", "resources": {"requests": {"cpu": "1", "memory": "128Mi"},
                                                         "limits": {"cpu": "2", "memory": "256Mi"}}}]}}
        v["input"]["featureGates"] = {"PodLevelResources": True}
        v["expected"] = {"resources": {"memoryLimitInBytes": 1073741824, "cpuPeriod": 100000, "cpuQuota": 800000,
                                       "cpuShares": 4096, "unified": oom}, "overhead": {}}
        v["note"] += (" With pod-level resources the sandbox takes the pod-level requests and limits, which "
                      "override both the container values and any DRA claim (the test's comments say so), so "
                      "leaving the claim out changes nothing." + dra_note)
    derive(t, 3, 8, "pod with pod-level resources", m8, short="cgroupv2-pod-with-pod-level-resources")


# TestGetSeccompProfile / TestGetSeccompProfileDefaultSeccomp (kuberuntime helpers_linux_test.go),
# through LinuxContainerConfig.securityContext.seccomp.
def seccomp_profiles():
    root = "/fakeSeccompProfileRoot"
    unconf = {"profileType": "Unconfined"}
    rtdef = {"profileType": "RuntimeDefault"}
    err = "localhostProfile must be set if seccompProfile type is Localhost."

    def prof(t, name=None):
        p = {"type": t}
        if name is not None:
            p["localhostProfile"] = name
        return p

    for t, default in (("TestGetSeccompProfile", False), ("TestGetSeccompProfileDefaultSeccomp", True)):
        cases = [
            ("no seccomp should return %s" % ("RuntimeDefault" if default else "unconfined"), None, None, "",
             rtdef if default else unconf),
            ("pod seccomp profile set to unconfined returns unconfined", prof("Unconfined"), None, "", unconf),
            ("container seccomp profile set to unconfined returns unconfined", None, prof("Unconfined"), "", unconf),
            ("pod seccomp profile set to SeccompProfileTypeRuntimeDefault returns runtime/default",
             prof("RuntimeDefault"), None, "", rtdef),
            ("container seccomp profile set to SeccompProfileTypeRuntimeDefault returns runtime/default",
             None, prof("RuntimeDefault"), "", rtdef),
            ("pod seccomp profile set to SeccompProfileTypeLocalhost returns 'localhost/' + LocalhostProfile",
             prof("Localhost", "filename"), None, "", {"profileType": "Localhost", "localhostRef": root + "/filename"}),
            ("pod seccomp profile set to SeccompProfileTypeLocalhost with empty LocalhostProfile returns error",
             prof("Localhost"), None, "", None),
            ("container seccomp profile set to SeccompProfileTypeLocalhost with empty LocalhostProfile returns error",
             None, prof("Localhost"), "", None),
            ("container seccomp profile set to SeccompProfileTypeLocalhost returns 'localhost/' + LocalhostProfile",
             None, prof("Localhost", "filename2"), "", {"profileType": "Localhost", "localhostRef": root + "/filename2"}),
            ("prioritise container field over pod field", prof("Unconfined"), prof("RuntimeDefault"), "", rtdef),
            ("prioritise container field over pod field", prof("Localhost", "field-pod-profile.json"),
             prof("Localhost", "field-cont-profile.json"), "container1",
             {"profileType": "Localhost", "localhostRef": root + "/field-cont-profile.json"}),
        ]
        for nn, (name, pod_sc, ctr_sc, cname, want) in enumerate(cases, start=1):
            def m(v, pod_sc=pod_sc, ctr_sc=ctr_sc, cname=cname, want=want):
                spec = {"containers": [{"name": cname}]}
                if pod_sc is not None:
                    spec["securityContext"] = {"seccompProfile": pod_sc}
                if ctr_sc is not None:
                    spec["containers"][0]["securityContext"] = {"seccompProfile": ctr_sc}
                v["input"]["pod"]["spec"] = spec
                v["input"]["node"]["kubelet"]["seccompDefault"] = default
                v["input"]["node"]["kubelet"]["seccompProfileRoot"] = root
                if want is None:
                    v["expected"] = {"error": {"contains": err}}
                    v["compare"] = "errorContains"
                else:
                    v["expected"] = {"securityContext": {"seccomp": want}}
                    v["compare"] = "subset"
                v["note"] = ("getSeccompProfile(annotations, containerName, podSC, containerSC, "
                             "fallbackToRuntimeDefault=%s) seen as LinuxContainerSecurityContext.seccomp; the "
                             "fake runtime manager's seccomp profile root is /fakeSeccompProfileRoot. The test "
                             "passes no annotations (they are no longer read) and compares errors with "
                             "EqualError." % ("true" if default else "false"))
            derive_as(t, "TestGenerateLinuxConfigSupplementalGroupsPolicy", 1, nn, name, m)


# TestGenerateContainerConfigWithMemoryQoSEnforced (kuberuntime_container_linux_test.go): case 02.
def memory_qos_without_limit():
    t = "TestGenerateContainerConfigWithMemoryQoSEnforced"

    def m(v):
        v["input"]["pod"]["spec"]["containers"][0]["resources"] = {"requests": {"memory": "128Mi"}}
        v["input"]["node"]["allocatable"] = {"memory": "32Gi"}
        v["expected"] = {"resources": {"unified": {"memory.high": "30937186304"}}}
        v["note"] = ("1.37 semantics (as for vendored case 01, see conformance/deviations.json): memory.min is "
                     "written only with memoryReservationPolicy TieredReservation, so the test's memory.min = "
                     "134217728 (v1.33) does not apply; memory.high = floor((request + 0.9 x (allocatable - "
                     "request)) / 4096) x 4096 with the fake node's allocatable memory (fakeNodeAllocatableMemory "
                     "= 32Gi), page size 4096 and memoryThrottlingFactor 0.9 given explicitly.")
    derive(t, 1, 2, "Request128MBWithoutLimit", m,
           source="kubelet TestGenerateContainerConfigWithMemoryQoSEnforced: Request128MBWithoutLimit (memory.high from node allocatable with MemoryQoS on cgroup v2)")



# pkg/kubelet/kubelet_pods_linux_test.go, through the new `runContainerOptions` function
# (GenerateRunContainerOptions: hostname, block devices, env, makeMounts).
def fresh(table, nn, case_name, function, inp, expected, compare, note, short=None):
    v = {"source": "kubelet %s: %s" % (table, case_name), "function": function, "input": inp,
         "expected": expected, "compare": compare, "note": note}
    write(table, nn, short or slug(case_name), v)


def run_mount(name, cpath, hpath, ro=False, relabel=False, prop="PROPAGATION_PRIVATE"):
    return {"name": name, "containerPath": cpath, "hostPath": hpath, "readOnly": ro,
            "selinuxRelabel": relabel, "propagation": prop}


RUN_OPTS_NOTE = ("The Go test calls makeMounts/makeBlockVolumes directly; here they run inside "
                 "GenerateRunContainerOptions, which also builds the environment, so the pod sets "
                 "enableServiceLinks false (as TestMakeMountsEtcHostsFile's pod does). node.volumes "
                 "stands for the test's volume map: stubVolume attributes are all false (not read-only, "
                 "no SELinux relabel).")


def make_mounts_tables():
    t = "TestMakeMounts"
    vols = {"disk": {"hostPath": "/mnt/disk"}, "disk4": {"hostPath": "/mnt/host"},
            "disk5": {"hostPath": "/var/lib/kubelet/podID/volumes/empty/disk5"}}

    def inp(container, volumes):
        return {"pod": {"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": "fakepodname", "namespace": "ns", "uid": "12345678"},
                        "spec": {"hostNetwork": True, "enableServiceLinks": False, "containers": [container]}},
                "containerIndex": 0, "podIPs": [""], "node": {"volumes": volumes}}

    c1 = {"name": "container1", "volumeMounts": [
        {"mountPath": "/etc/hosts", "name": "disk", "readOnly": False, "mountPropagation": "HostToContainer"},
        {"mountPath": "/mnt/path3", "name": "disk", "readOnly": True, "mountPropagation": "None"},
        {"mountPath": "/mnt/path4", "name": "disk4", "readOnly": False},
        {"mountPath": "/mnt/path5", "name": "disk5", "readOnly": False}]}
    fresh(t, 1, "valid mounts in unprivileged container", "runContainerOptions", inp(c1, vols),
          {"mounts": [run_mount("disk", "/etc/hosts", "/mnt/disk", prop="PROPAGATION_HOST_TO_CONTAINER"),
                      run_mount("disk", "/mnt/path3", "/mnt/disk", ro=True),
                      run_mount("disk4", "/mnt/path4", "/mnt/host"),
                      run_mount("disk5", "/mnt/path5", "/var/lib/kubelet/podID/volumes/empty/disk5")]},
          "subset", RUN_OPTS_NOTE + " The container mounts a volume at /etc/hosts, so no managed hosts "
          "mount is added (the pod is host-network with podIPs [\"\"], as in the test).")
    c2 = {"name": "container1", "securityContext": {"privileged": True}, "volumeMounts": [
        {"mountPath": "/etc/hosts", "name": "disk", "readOnly": False, "mountPropagation": "Bidirectional"},
        {"mountPath": "/mnt/path3", "name": "disk", "readOnly": True, "mountPropagation": "HostToContainer"},
        {"mountPath": "/mnt/path4", "name": "disk4", "readOnly": False}]}
    fresh(t, 2, "valid mounts in privileged container", "runContainerOptions", inp(c2, vols),
          {"mounts": [run_mount("disk", "/etc/hosts", "/mnt/disk", prop="PROPAGATION_BIDIRECTIONAL"),
                      run_mount("disk", "/mnt/path3", "/mnt/disk", ro=True, prop="PROPAGATION_HOST_TO_CONTAINER"),
                      run_mount("disk4", "/mnt/path4", "/mnt/host")]},
          "subset", RUN_OPTS_NOTE)
    errs = [
        (3, "invalid absolute SubPath", {"mountPath": "/mnt/path3", "subPath": "/must/not/be/absolute", "name": "disk", "readOnly": True},
         {"disk": {"hostPath": "/mnt/disk"}}, "error SubPath `/must/not/be/absolute` must not be an absolute path"),
        (4, "invalid SubPath with backsteps", {"mountPath": "/mnt/path3", "subPath": "no/backsteps/../allowed", "name": "disk", "readOnly": True},
         {"disk": {"hostPath": "/mnt/disk"}}, "unable to provision SubPath `no/backsteps/../allowed`: must not contain '..'"),
        (5, "volume doesn't exist", {"mountPath": "/mnt/path3", "name": "disk", "readOnly": True}, {},
         "cannot find volume \"disk\" to mount into container \"\""),
    ]
    for nn, name, mount, volumes, msg in errs:
        fresh(t, nn, name, "runContainerOptions", inp({"name": "", "volumeMounts": [mount]}, volumes),
              {"error": {"contains": msg}}, "errorContains",
              RUN_OPTS_NOTE + " The test compares the whole error text (err.Error() == expectedErrMsg).")
    # 06 "volume mounter is nil": a volume-map entry without a mounter has no form in node.volumes
    # (an entry there is a mounted volume); not translated.

    t = "TestMakeMountsEtcHostsFile"
    hosts = run_mount("k8s-managed-etc-hosts", "/etc/hosts", "/var/lib/kubelet/pods/12345678/etc-hosts", relabel=True)
    cases = [
        ("pod with network", False, ["192.168.0.1"], None, [hosts]),
        ("pod with network but no IPs", False, [], None, []),
        ("pod with host network", True, ["192.168.0.1"], None, [hosts]),
        ("pod with host network but no IPs", True, [], None, [hosts]),
        ("pod with network already mounting the hosts file", False, ["192.168.0.1"],
         [{"name": "etchosts", "mountPath": "/etc/hosts"}], [run_mount("etchosts", "/etc/hosts", "/mnt/disk")]),
    ]
    for nn, (name, hostnet, ips, mounts, want) in enumerate(cases, start=1):
        c = {"name": "test-container", "image": "img"}
        if mounts:
            c["volumeMounts"] = mounts
        spec = {"enableServiceLinks": False, "containers": [c]}
        if hostnet:
            spec["hostNetwork"] = True
        note = ("The test asserts only whether the k8s-managed-etc-hosts mount is present; the mount "
                "itself follows makeHostsMount (<pod dir>/etc-hosts, read-write, SELinux relabel). The "
                "test's pod dir is a temp dir and its pod has no uid; here the pod dir is "
                "/var/lib/kubelet/pods/12345678.")
        if name == "pod with host network but no IPs":
            note += (" 1.37 (shouldMountHostsFile: len(podIPs) > 0 || pod.Spec.HostNetwork) mounts the "
                     "hosts file for host-network pods even before their IPs are known; older kubelets "
                     "(and cri-config.md 6.2) required a pod IP.")
        fresh(t, nn, name, "runContainerOptions",
              {"pod": {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"namespace": "test-ns", "name": "test-pod-name", "uid": "12345678", "annotations": {}},
                       "spec": spec},
               "containerIndex": 0, "podIPs": ips,
               "node": {"volumes": {"etchosts": {"hostPath": "/mnt/disk"}}} if mounts else {}},
              {"mounts": want}, "subset", note)

    t = "TestMakeBlockVolumes"

    def binp(devices, volumes, name=""):
        return {"pod": {"apiVersion": "v1", "kind": "Pod",
                        "metadata": {"name": "fakepodname", "namespace": "ns", "uid": "12345678"},
                        "spec": {"hostNetwork": True, "enableServiceLinks": False,
                                 "containers": [{"name": name, "volumeDevices": devices}]}},
                "containerIndex": 0, "podIPs": [], "node": {"volumes": volumes}}
    bnote = ("makeBlockVolumes runs inside GenerateRunContainerOptions (so the pod sets enableServiceLinks "
             "false). node.volumes[].blockDevicePath is the test's BlockVolumeMapper symlink "
             "(GetPodDeviceMapPath dir + volume name; the fake path handler reports it as existing); "
             "readOnly is the volume's ReadOnly.")
    fresh(t, 1, "valid volumeDevices in container", "runContainerOptions",
          binp([{"devicePath": "/dev/sda", "name": "disk1"}, {"devicePath": "/dev/xvda", "name": "disk2"},
                {"devicePath": "/dev/xvdb", "name": "disk3"}, {"devicePath": "/mnt/rawdisk", "name": "disk4"}],
               {"disk1": {"blockDevicePath": "/dev/sda"},
                "disk2": {"blockDevicePath": "/dev/disk/by-path/diskPath", "readOnly": True},
                "disk3": {"blockDevicePath": "/dev/disk/by-id/diskUuid"},
                "disk4": {"blockDevicePath": "/var/lib/rawdisk", "readOnly": True}}, "container1"),
          {"devices": [{"containerPath": "/dev/sda", "hostPath": "/dev/sda", "permissions": "mrw"},
                       {"containerPath": "/dev/xvda", "hostPath": "/dev/disk/by-path/diskPath", "permissions": "r"},
                       {"containerPath": "/dev/xvdb", "hostPath": "/dev/disk/by-id/diskUuid", "permissions": "mrw"},
                       {"containerPath": "/mnt/rawdisk", "hostPath": "/var/lib/rawdisk", "permissions": "r"}]},
          "subset", bnote)
    berrs = [
        (2, "invalid absolute Path", [{"devicePath": "must/be/absolute", "name": "disk"}],
         {"disk": {"blockDevicePath": "/dev/sda"}}, "error DevicePath `must/be/absolute` must be an absolute path"),
        (3, "volume doesn't exist", [{"devicePath": "/dev/sdaa", "name": "disk"}], {},
         "cannot find volume \"disk\" to pass into container \"\""),
        (4, "volume BlockVolumeMapper is nil", [{"devicePath": "/dev/sdzz", "name": "disk"}], {"disk": {}},
         "cannot find volume \"disk\" to pass into container \"\""),
    ]
    for nn, name, devices, volumes, msg in berrs:
        fresh(t, nn, name, "runContainerOptions", binp(devices, volumes), {"error": {"contains": msg}},
              "errorContains", bnote + " A node.volumes entry without blockDevicePath is a volume without a "
              "block mapper. The test compares the whole error text.")



# fileKeyRef (EnvFiles): no kubelet unit test covers it (TestMakeEnvironmentVariables passes an
# empty volume map); these follow makeEnvironmentVariables in the 1.37 kubelet_pods.go.
def env_files():
    t = "MakeEnvironmentVariablesEnvFiles"
    vol_path = "/var/lib/kubelet/pods/12345678/volumes/kubernetes.io~empty-dir/config"
    files = {"config": {"config.env": {"DATABASE": "mydb", "EMPTY": ""}}}

    def ref(key, path="config.env", volume="config", optional=None):
        r = {"volumeName": volume, "path": path, "key": key}
        if optional is not None:
            r["optional"] = optional
        return {"fileKeyRef": r}

    cases = [
        ("key found", [("DATABASE", ref("DATABASE"))], True, files, {"env": [{"name": "DATABASE", "value": "mydb"}]}),
        ("empty value optional is skipped", [("EMPTY", ref("EMPTY", optional=True))], True, files, {"env": []}),
        ("empty value not optional fails", [("EMPTY", ref("EMPTY"))], True, files,
         {"error": {"contains": 'environment variable key "EMPTY" not found in file "%s/config.env"' % vol_path}}),
        ("missing key optional is skipped", [("NOPE", ref("NOPE", optional=True))], True, files, {"env": []}),
        ("volume not mounted fails even when optional", [("DATABASE", ref("DATABASE", volume="other", optional=True))],
         True, files, {"error": {"contains": 'cannot find the volume "other" referenced by FileKeyRef'}}),
        ("unreadable file fails even when optional", [("DATABASE", ref("DATABASE", path="nope.env", optional=True))],
         True, files, {"error": {"contains": "couldn't parse env file"}}),
        ("path is kept inside the volume", [("NOPE", ref("NOPE", path="../../config.env"))], True,
         {"config": {"../../config.env": {}}},
         {"error": {"contains": 'environment variable key "NOPE" not found in file "%s/config.env"' % vol_path}}),
        ("gate off leaves the variable empty", [("DATABASE", ref("DATABASE"))], False, files,
         {"env": [{"name": "DATABASE", "value": ""}]}),
    ]
    for nn, (name, env, gate, envfiles, expected) in enumerate(cases, start=1):
        def m(v, env=env, gate=gate, envfiles=envfiles, expected=expected):
            pod = v["input"]["pod"]
            pod["metadata"]["uid"] = "12345678"
            pod["spec"]["volumes"] = [{"name": "config", "emptyDir": {}}]
            pod["spec"]["containers"][0] = {"env": [{"name": n, "valueFrom": vf} for n, vf in env]}
            v["input"]["node"]["services"] = []
            v["input"]["node"]["envFiles"] = envfiles
            v["input"]["featureGates"] = {"EnvFiles": gate}
            v["expected"] = expected
            if "error" in expected:
                v["compare"] = "errorContains"
            else:
                v.pop("compare", None)
            v["note"] = ("Derived from makeEnvironmentVariables' EnvFiles branch in the 1.37 kubelet_pods.go "
                         "(no kubelet unit test covers fileKeyRef): the volume must be mounted (checked before "
                         "'optional'); the file is securejoin(<volume host path>, path); a file that cannot be "
                         "read gives \"couldn't parse env file\"; a key that is absent or empty is skipped when "
                         "optional, else an error. node.envFiles holds the parsed files (a path missing there is "
                         "an unreadable file); the emptyDir's host path is the volume manager's standard one. "
                         "Service links off and no services, so only the variables under test appear.")
        derive_as(t, "TestMakeEnvironmentVariables", 5, nn, name, m,
                  source="kubelet makeEnvironmentVariables (EnvFiles, fileKeyRef): %s" % name)



# TestVerifyRunAsNonRoot, newest generation (security_context_others_test.go, ktesting): 13
# cases; the vendored copy has the first 11.
def verify_run_as_non_root():
    t = "TestVerifyRunAsNonRoot"

    def m12(v):
        v["input"]["imageUser"]["uid"] = -1000
        v["expected"]["error"]["message"] = ("container has runAsNonRoot and image has an invalid user id (-1000). "
                                             "(Must be 1-(2147483647)): must be between 0 and 2147483647, inclusive "
                                             "(pod: \"bar_new(12345678)\", container: foo)")
    derive(t, 11, 12, "Fail if image's user is negative and RunAsNonRoot is true", m12)

    def m13(v):
        v["input"]["imageUser"]["uid"] = 2147483647
    derive(t, 9, 13, "Pass if image's user is math.MaxInt32 and RunAsNonRoot is true", m13)



# Trailing cases of short tables (kuberuntime helpers_test.go TestToRuntimeProtocol: 4 cases;
# container/helpers_test.go TestExpandCommandAndArgs: 4 cases).
def trailing_short_tables():
    t = "TestToRuntimeProtocol"
    for nn, name, proto, want in ((3, "SCTP protocol", "SCTP", "SCTP"), (4, "unknown protocol", "unknown", "TCP")):
        def m(v, proto=proto, want=want):
            v["input"]["protocol"] = proto
            v["expected"] = {"protocol": want}
        derive(t, 2, nn, name, m)

    t = "TestExpandCommandAndArgs"

    def m3(v):
        v["input"] = {"container": {"args": ["zap", "$(VAR_TEST)", "$(VAR_TEST2)"]},
                      "env": [{"name": "VAR_TEST", "value": "hap"}, {"name": "VAR_TEST2", "value": "trap"}]}
        v["expected"] = {"command": None, "args": ["zap", "hap", "trap"]}
    derive(t, 2, 3, "args expanded", m3)

    def m4(v):
        v["input"] = {"container": {"command": ["$(VAR_TEST2)--$(VAR_TEST)", "foo", "$(VAR_TEST3)"],
                                    "args": ["foo", "$(VAR_TEST)", "$(VAR_TEST2)"]},
                      "env": [{"name": "VAR_TEST", "value": "zoo"}, {"name": "VAR_TEST2", "value": "boo"},
                              {"name": "VAR_TEST3", "value": "roo"}]}
        v["expected"] = {"command": ["boo--zoo", "foo", "roo"], "args": ["foo", "zoo", "boo"]}
    derive(t, 2, 4, "both expanded", m4)

def main():
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    calculate_linux_resources()
    generate_linux_container_resources()
    generate_linux_container_resources_with_swap()
    hugepage_limits()
    milli_cpu_to_quota()
    expand_subpath()
    mapping()
    should_container_be_restarted()
    has_privileged_container()
    apparmor_and_image_user()
    sandbox_seccomp()
    make_environment_variables()
    truncate_pod_hostname()
    nodename_for_kernel()
    pod_dns_type()
    pod_dns()
    pod_dns_custom()
    form_dns_search_fits_limits()
    form_dns_nameservers_fits_limits()
    merge_dns_options()
    container_oom_score_adjust()
    container_oom_score_adjust_tie_break()
    apply_sandbox_resources()
    seccomp_profiles()
    memory_qos_without_limit()
    make_mounts_tables()
    env_files()
    verify_run_as_non_root()
    trailing_short_tables()
    for n in WRITTEN:
        print(n)
    print(len(WRITTEN), "vectors", file=sys.stderr)


if __name__ == "__main__":
    main()
