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
    for n in WRITTEN:
        print(n)
    print(len(WRITTEN), "vectors", file=sys.stderr)


if __name__ == "__main__":
    main()
