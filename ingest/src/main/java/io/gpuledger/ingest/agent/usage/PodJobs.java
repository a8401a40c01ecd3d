package io.gpuledger.ingest.agent.usage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The jobs the agent names after their pods, one for the whole agent: how they are written ({@link PodJobIds}),
 * and, where job ids carry no namespace, the names its sources gave pods (or workloads) of several namespaces in one
 * round, and so one job id, each name said once. The sources that name a job after its pod (dcgm-exporter's pods,
 * HAMi's, the kubelet's, DRA claims) note each pod they name a GPU's job or user after; the agent says what it drains
 * after each round. By workload, a pod the kubelet has not listed (yet) is named after itself.
 */
public final class PodJobs {

    /** The most names said: a node sees few; the bound keeps a cluster of endless clashes from growing it. */
    private static final int SAID_AT_MOST = 1024;

    private final PodJobIds ids;
    private volatile PodWorkloads workloads = PodWorkloads.none();
    /** The namespaces of the pods of each name named this round. */
    private final Map<String, Set<String>> named = new HashMap<>();
    private final Set<String> said = new HashSet<>();

    public PodJobs(PodJobIds ids) {
        this.ids = ids;
    }

    /** How job ids are written. */
    public PodJobIds ids() {
        return ids;
    }

    /** Where pods' workloads are read from (the kubelet's pod list), by {@link PodJobIds#byWorkload()}. */
    public void workloadsFrom(PodWorkloads workloads) {
        this.workloads = workloads;
    }

    /** The job of the pod {@code pod} in {@code namespace}, as {@link PodJobIds} writes it. */
    public String jobOf(String namespace, String pod) {
        return jobOf(namespace, pod, lookUp(namespace, pod));
    }

    /** The job of the pod {@code pod} in {@code namespace}, whose workload is known (empty: none made it). */
    public String jobOf(String namespace, String pod, Optional<String> workload) {
        return ids.jobOf(namespace, nameOf(pod, workload));
    }

    /**
     * Notes that a GPU's job or user is named after the pod {@code pod} in {@code namespace}, and gives that job, as
     * {@link #jobOf} writes it.
     */
    public String named(String namespace, String pod) {
        return named(namespace, pod, lookUp(namespace, pod));
    }

    /** As {@link #named(String, String)}, for a pod whose workload is known. */
    public String named(String namespace, String pod, Optional<String> workload) {
        return note(namespace, nameOf(pod, workload));
    }

    private Optional<String> lookUp(String namespace, String pod) {
        return ids.byWorkload() ? workloads.workloadOf(namespace, pod) : Optional.empty();
    }

    /** The name a pod's job is written with: its workload's, where jobs are named so and it has one, else its own. */
    private String nameOf(String pod, Optional<String> workload) {
        return ids.byWorkload() ? workload.orElse(pod) : pod;
    }

    private synchronized String note(String namespace, String name) {
        if (!ids.withNamespace() && namespace != null && !namespace.isBlank() && !said.contains(name)) {
            named.computeIfAbsent(name, n -> new TreeSet<>()).add(namespace);
        }
        return ids.jobOf(namespace, name);
    }

    /** The names noted in several namespaces since the last call, one job id each: each name said once. */
    public synchronized List<String> drainSameNamed() {
        List<String> unsaid = new ArrayList<>();
        String what = ids.byWorkload() ? "pods (or their workloads) named " : "pods named ";
        String apart = ids.byWorkload() ? "namespace/workload" : "namespace/pod";
        named.forEach((name, namespaces) -> {
            if (namespaces.size() > 1 && said.size() < SAID_AT_MOST && said.add(name)) {
                unsaid.add(what + name + " in namespaces " + String.join(", ", namespaces) + " get one job id '"
                        + name + "'; " + PodJobIds.SETTING + "=" + apart + " tells them apart");
            }
        });
        named.clear();
        return unsaid;
    }
}
