package io.gpuledger.ingest.agent.owners;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.http.BoundedGet;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;

/**
 * The GPUs of this node that Kubernetes allocated to pods through DRA ResourceClaims, read from the API server
 * (read-only, {@code resource.k8s.io/v1}): the node's slices ({@code list} on {@code resourceslices},
 * {@code fieldSelector=spec.nodeName=<node>}) and the claims that may hold their devices, matched as
 * {@link DraDevices} says. Where the kubelet is read, those are the claims its pods use, each asked for by name
 * ({@code get} on {@code resourceclaims}): an agent's requests grow with its node's pods, not with the cluster.
 * Without the kubelet, or before it first answered, every claim of the cluster is listed ({@code list}). Both
 * are asked for again at most every {@link #REFRESH_EVERY}, when a GPU is looked up: a pod that
 * starts is seen within a round or three, and the API server is not asked every round. The first time the
 * sampling round waits for them (an {@code --once} round has no other); after that they are asked for on a
 * thread of their own while the rounds go on with what was last known, so an API server that is slow or away
 * never holds a round up (a list of a large cluster's claims takes up to 10 s a page before it times out).
 *
 * <p>A GPU's holder is its one pod: the job and team the kubelet's labels give it ({@link KubeletPods}, same
 * allow-lists) where the kubelet is read (the last it gave, for a pod it lists no more while its claims still hold
 * the GPU), else its name (as {@link PodJobIds} writes it) and namespace. A GPU
 * several pods hold (a claim shared by pods, a device given to several claims) has no one holder: the claims
 * cannot say which of them used it.
 */
public final class DraClaims {

    static final Duration REFRESH_EVERY = Duration.ofSeconds(30);
    static final String SLICES = "/apis/resource.k8s.io/v1/resourceslices";
    static final String CLAIMS = "/apis/resource.k8s.io/v1/resourceclaims";
    static final String NAMESPACES = "/apis/resource.k8s.io/v1/namespaces/";
    private static final int PAGE = 500;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String apiUrl;
    private final String nodeName;
    private final Optional<Path> tokenFile;
    private final Optional<KubeletPods> pods;
    private final PodJobs podJobs;
    /** How long the API server has to answer, a whole page of a list included. */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(10);

    private final HttpClient http;
    private final Refreshes refreshes;
    private final SaidOnce failures = new SaidOnce();
    /** What kept MIG devices from being named: said apart from the API server's failures, which an answer clears. */
    private final SaidOnce migFailures = new SaidOnce();
    private final MigInstances migInstances;
    /** The GPU instances as nvidia-smi last listed them. */
    private volatile Map<String, MigInstances.Slice> lastSlicesByPlacement = Map.of();
    private volatile Map<String, List<DraDevices.Pod>> holders = Map.of();
    /**
     * The owner the kubelet last gave each holding pod, by UID, kept while it holds a GPU: a pod being deleted is
     * gone from the kubelet's list up to {@link #REFRESH_EVERY} before its claims are, and is still the same job.
     */
    private final Map<String, Owner> ownersGiven = new ConcurrentHashMap<>();
    /** How long every claim is listed after a claim's {@code get} was refused, before {@code get} is tried again. */
    static final Duration LIST_ONLY_FOR = Duration.ofMinutes(10);
    private final Clock clock;
    /**
     * Until when every claim is listed: a claim's {@code get} was refused (a role that grants {@code list} alone).
     */
    private volatile Instant listOnlyUntil = Instant.MIN;
    /** Whether that refusal was said: once, not at every try. */
    private volatile boolean getRefusalSaid;

    /**
     * @param apiUrl    the API server, e.g. {@code https://kubernetes.default.svc}
     * @param nodeName  this node's name, as its ResourceSlices name it
     * @param tokenFile a bearer token to present, read again each time (the service account's, mounted)
     * @param caFile    PEM certificates to trust for the API server (the service account's {@code ca.crt}); the
     *                  JVM's trust store without it
     * @param pods      the kubelet's pods, for the labels naming a pod's job and team; empty: name and namespace
     * @param podJobs   how a job named after its pod is written, where the kubelet does not list the pod
     * @param migInstances the GPU instances of the node's GPUs ({@code nvidia-smi mig -lgi}), asked for only
     *                  while some claim holds a MIG device of the node
     * @throws IllegalArgumentException when the CA file cannot be read as certificates
     */
    public DraClaims(URI apiUrl, String nodeName, Optional<Path> tokenFile, Optional<Path> caFile,
            Optional<KubeletPods> pods, PodJobs podJobs, Clock clock, MigInstances migInstances) {
        this(apiUrl, nodeName, tokenFile, caFile, pods, podJobs, clock, Refreshes.backgroundThread("dra-claims"),
                migInstances);
    }

    /** As the public constructor, with the refreshes after the first run by {@code refresher}. */
    DraClaims(URI apiUrl, String nodeName, Optional<Path> tokenFile, Optional<Path> caFile,
            Optional<KubeletPods> pods, PodJobs podJobs, Clock clock, Executor refresher, MigInstances migInstances) {
        this.migInstances = migInstances;
        this.refreshes = new Refreshes(REFRESH_EVERY, clock, refresher, this::refresh);
        this.clock = clock;
        String base = apiUrl.toString();
        this.apiUrl = base.endsWith("/") ? base.substring(0, base.length() - 1) : base;
        this.nodeName = nodeName;
        this.tokenFile = tokenFile;
        this.pods = pods;
        this.podJobs = podJobs;
        HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
        caFile.ifPresent(file -> client.sslContext(TrustedCertificates.sslContext(file, "kubernetes.ca-file")));
        this.http = client.build();
    }

    /**
     * The one pod that holds this GPU by its claims, as a job and team; empty when none or several do. Never waits
     * for the API server but the first time.
     */
    public Optional<Owner> holderOf(String gpuUuid) {
        refreshes.askIfDue();
        List<DraDevices.Pod> holding = holders.getOrDefault(gpuUuid, List.of());
        if (holding.size() != 1) {
            return Optional.empty();
        }
        DraDevices.Pod pod = holding.get(0);
        Optional<Owner> given = pods.flatMap(kubelet -> kubelet.ownerOf(pod.uid()));
        given.ifPresent(owner -> ownersGiven.put(pod.uid(), owner));
        return given.or(() -> Optional.ofNullable(ownersGiven.get(pod.uid())))
                .or(() -> Optional.of(new Owner(podJobs.named(pod.namespace(), pod.name()), pod.namespace())));
    }

    /** What went wrong since the last call (an API server away, a refusal, an answer that is no list), once each. */
    public synchronized List<String> drainErrors() {
        List<String> errors = new ArrayList<>(failures.drain());
        errors.addAll(migFailures.drain());
        return errors;
    }

    /** Asks for both lists and keeps what they say, or what was known before if they fail. */
    private void refresh() {
        try {
            List<JsonNode> slices = list(SLICES + "?fieldSelector="
                    + URLEncoder.encode("spec.nodeName=" + nodeName, StandardCharsets.UTF_8));
            Map<String, String> gpus = new HashMap<>(DraDevices.gpus(slices));
            Map<String, DraDevices.MigDevice> migs = new HashMap<>(DraDevices.migDevices(slices));
            if (gpus.isEmpty() && migs.isEmpty()) {
                // A node whose slices name no GPU (no DRA driver on it) has no claim to look for.
                holders = Map.of();
            } else {
                List<DraDevices.Allocation> allocations = DraDevices.allocations(claims());
                // Only the MIG devices claims were given: a driver may publish every partition a GPU allows.
                Set<String> allocated = new HashSet<>();
                allocations.forEach(allocation -> allocated.add(allocation.device()));
                migs.keySet().retainAll(allocated);
                gpus.putAll(migSlices(migs));
                holders = DraDevices.holders(gpus, allocations);
            }
            Set<String> holding = new HashSet<>();
            holders.values().forEach(podsOfGpu -> podsOfGpu.forEach(pod -> holding.add(pod.uid())));
            ownersGiven.keySet().retainAll(holding);
            synchronized (this) {
                failures.answered();
            }
        } catch (Refused e) {
            failed(e.getMessage());
        } catch (JsonProcessingException e) {
            failed("answered what is not a list (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            failed("unreachable: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            failed("answered what cannot be read (" + e + ")");
        }
    }

    /**
     * The slice the agent samples ({@code <GPU UUID>/mig/<instance id>}) of each MIG device, by device key: the GPU
     * instance nvidia-smi lists at the device's parent and placement. A device of no such instance, or all of them
     * where nvidia-smi fails, is left out and said once: its pods' slices are not mapped.
     */
    private Map<String, String> migSlices(Map<String, DraDevices.MigDevice> devices) {
        if (devices.isEmpty()) {
            synchronized (this) {
                migFailures.answered();
            }
            return Map.of();
        }
        Map<String, MigInstances.Slice> slicesByPlacement;
        boolean listed = true;
        try {
            slicesByPlacement = migInstances.slicesByPlacement();
            lastSlicesByPlacement = slicesByPlacement;
        } catch (IOException e) {
            // What the last good run said, until nvidia-smi answers again: a run that timed out once maps nothing less.
            migFailed("nvidia-smi cannot list the GPU instances (" + e.getMessage() + ")");
            slicesByPlacement = lastSlicesByPlacement;
            listed = false;
        }
        Map<String, String> slices = new HashMap<>();
        List<String> unknown = new ArrayList<>();
        Map<String, MigInstances.Slice> instances = slicesByPlacement;
        devices.forEach((key, device) -> {
            MigInstances.Slice slice = instances.get(
                    MigInstances.placementKey(device.parentUuid(), device.placementStart()));
            if (slice != null && (device.profile() == null || device.profile().equals(slice.profile()))) {
                slices.put(key, slice.id());
            } else {
                unknown.add(device.name() + " (" + (device.profile() == null ? "a MIG device" : device.profile())
                        + " of " + device.parentUuid() + " from memory slice " + device.placementStart() + ")");
            }
        });
        if (!listed) {
            return slices;
        }
        if (!unknown.isEmpty()) {
            migFailed("no GPU instance of that profile that nvidia-smi lists starts at " + String.join(", ", unknown));
        } else {
            synchronized (this) {
                migFailures.answered();
            }
        }
        return slices;
    }

    private synchronized void migFailed(String why) {
        migFailures.failed("kubernetes: DRA MIG devices: " + why + "; the slices of those devices are not mapped to"
                + " pods");
    }

    /**
     * The claims that may hold the node's devices: those the kubelet says its pods use, each asked for by name (one
     * deleted since is passed over), else every claim of the cluster.
     */
    private List<JsonNode> claims() throws IOException, InterruptedException {
        Optional<Set<KubeletPods.PodClaim>> ofPods = pods.flatMap(KubeletPods::claimsOfPods);
        if (ofPods.isEmpty() || clock.instant().isBefore(listOnlyUntil)) {
            return list(CLAIMS);
        }
        List<JsonNode> claims = new ArrayList<>();
        for (KubeletPods.PodClaim claim : ofPods.get()) {
            String path = NAMESPACES + URLEncoder.encode(claim.namespace(), StandardCharsets.UTF_8)
                    + "/resourceclaims/" + URLEncoder.encode(claim.name(), StandardCharsets.UTF_8);
            // From the API server's cache, as the lists' first pages are.
            BoundedGet.Answer response = ask(path + "?resourceVersion=0");
            if (response.statusCode() == 404) {
                continue;
            }
            if (response.statusCode() == 403) {
                // A role made for an agent that listed every claim: go on as it did, say so once, and try again later.
                listOnlyUntil = clock.instant().plus(LIST_ONLY_FOR);
                if (!getRefusalSaid) {
                    getRefusalSaid = true;
                    synchronized (this) {
                        failures.failed("kubernetes: " + apiUrl + " refused get on resourceclaims (HTTP 403): every"
                                + " claim of the cluster is listed instead, and get tried again every "
                                + LIST_ONLY_FOR.toMinutes() + " minutes; grant the agent's role get on them"
                                + " (docs/agent.md)");
                    }
                }
                return list(CLAIMS);
            }
            claims.add(JSON.readTree(answered(path, response, "get")));
        }
        return claims;
    }

    /** Every item of a list, page by page. */
    private List<JsonNode> list(String path) throws IOException, InterruptedException {
        List<JsonNode> items = new ArrayList<>();
        String next = "";
        do {
            // The first page from the API server's cache (resourceVersion=0), not a quorum read of etcd: every
            // agent asks every 30 s. The next pages by their token, which carries the version itself.
            String query = (path.contains("?") ? "&" : "?") + "limit=" + PAGE
                    + (next.isEmpty() ? "&resourceVersion=0"
                    : "&continue=" + URLEncoder.encode(next, StandardCharsets.UTF_8));
            JsonNode list = JSON.readTree(answered(path, ask(path + query), "list"));
            if (!list.path("items").isArray()) {
                throw new Refused(path + " answered JSON without a list of items");
            }
            list.path("items").forEach(items::add);
            next = list.path("metadata").path("continue").asText("");
        } while (!next.isEmpty());
        return items;
    }

    private BoundedGet.Answer ask(String pathAndQuery) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(apiUrl + pathAndQuery))
                .timeout(ANSWER_WITHIN).header("Accept", "application/json").GET();
        if (tokenFile.isPresent()) {
            request.header("Authorization", "Bearer " + Files.readString(tokenFile.get(), StandardCharsets.UTF_8)
                    .strip());
        }
        return BoundedGet.send(http, request.build(), ANSWER_WITHIN, BoundedGet.AGENT_MAX_BYTES);
    }

    /** The body of a {@code 200} answer to {@code verb} on {@code path}; any other is refused. */
    private static String answered(String path, BoundedGet.Answer response, String verb) throws Refused {
        if (response.statusCode() != 200) {
            throw new Refused(path.substring(0, path.contains("?") ? path.indexOf('?') : path.length())
                    + " answered HTTP " + response.statusCode()
                    + (response.statusCode() == 403 ? " (the agent's role may not " + verb + " it)" : ""));
        }
        return response.body();
    }

    private synchronized void failed(String why) {
        String failure = "kubernetes: " + apiUrl + " " + why + "; GPUs allocated by DRA claims are not mapped to pods";
        failures.failed(failure);
    }

    /** The API server answered, but not with the list. */
    private static final class Refused extends IOException {
        private static final long serialVersionUID = 1L;

        Refused(String message) {
            super(message);
        }
    }
}
