package io.gpuledger.ingest.agent.usage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The jobs the agent names after their pods, one for the whole agent: how they are written ({@link PodJobIds}),
 * and, under {@link PodJobIds#POD}, the names whose pods of several namespaces the GPUs were charged to in one
 * round, as one job, each name said once. The sources that name a job after its pod (dcgm-exporter's pods, HAMi's,
 * the kubelet's, DRA claims) note each pod they charge; the agent says what it drains after each round.
 */
public final class PodJobs {

    /** The most names said: a node sees few; the bound keeps a cluster of endless clashes from growing it. */
    private static final int SAID_AT_MOST = 1024;

    private final PodJobIds ids;
    /** The namespaces of the pods of each name charged this round. */
    private final Map<String, Set<String>> charged = new HashMap<>();
    private final Set<String> said = new HashSet<>();

    public PodJobs(PodJobIds ids) {
        this.ids = ids;
    }

    /** The job of the pod {@code pod} in {@code namespace}, as {@link PodJobIds} writes it. */
    public String jobOf(String namespace, String pod) {
        return ids.jobOf(namespace, pod);
    }

    /** Notes that a GPU was charged to the job named after the pod {@code pod} in {@code namespace}. */
    public synchronized void charged(String namespace, String pod) {
        if (ids == PodJobIds.POD && namespace != null && !namespace.isBlank() && !said.contains(pod)) {
            charged.computeIfAbsent(pod, name -> new TreeSet<>()).add(namespace);
        }
    }

    /** The names charged in several namespaces since the last call, as one job each: each name said once. */
    public synchronized List<String> drainSameNamed() {
        List<String> unsaid = new ArrayList<>();
        charged.forEach((name, namespaces) -> {
            if (namespaces.size() > 1 && said.size() < SAID_AT_MOST && said.add(name)) {
                unsaid.add("pods named " + name + " in namespaces " + String.join(", ", namespaces)
                        + " count as one job '" + name + "'; " + PodJobIds.SETTING
                        + "=namespace/pod tells them apart");
            }
        });
        charged.clear();
        return unsaid;
    }
}
