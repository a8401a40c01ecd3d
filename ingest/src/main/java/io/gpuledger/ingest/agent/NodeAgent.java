// Over 400 lines: the agent's wiring and its one loop; collectors, notices and reports live in their packages.
package io.gpuledger.ingest.agent;

import io.gpuledger.ingest.agent.cloud.CloudMetadata;
import io.gpuledger.ingest.agent.collect.Collector;
import io.gpuledger.ingest.agent.collect.DcgmCollector;
import io.gpuledger.ingest.agent.collect.DcgmScrape;
import io.gpuledger.ingest.agent.collect.GpuReading;
import io.gpuledger.ingest.agent.collect.NvidiaSmiCollector;
import io.gpuledger.ingest.agent.progress.AgentHttp;
import io.gpuledger.ingest.agent.progress.IssuerKeys;
import io.gpuledger.ingest.agent.progress.ProgressReports;
import io.gpuledger.ingest.agent.share.GpuSharing;
import io.gpuledger.ingest.agent.share.SaidOnceEach;
import io.gpuledger.ingest.agent.share.Split;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.model.CapacityEvent;
import io.gpuledger.model.CapacityEventKind;
import io.gpuledger.model.Check;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.JobProgress;
import io.gpuledger.model.Json;
import io.gpuledger.model.Placement;
import io.gpuledger.model.TelemetrySample;
import io.gpuledger.model.Topics;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * The node agent: every interval it reads all enabled collectors, merges their readings per GPU
 * and publishes one {@link TelemetrySample} per GPU; it polls the cloud for capacity notices and
 * publishes each notice once; it takes jobs' work reports over HTTP, and the host's word that the
 * instance is shutting down, which it publishes as a notice of its own.
 *
 * <p>dcgm-exporter's readings are preferred and nvidia-smi fills what they lack. A GPU with no
 * activity reading at all (neither SM nor graphics engine activity nor utilisation) is sampled
 * with its activity unknown (counted): it is paid for all the same, and an invented activity
 * would be worse than one the cost engine counts as neither idle nor busy.
 *
 * <p>A GPU several jobs used in the round ({@link GpuSharing}: dcgm-exporter's pods, HAMi's containers,
 * nvidia-smi's processes mapped to their jobs) is sampled as shared, with each job's share by the pool's
 * policy ({@code share.policy}); a GPU one job alone used is that job's.
 */
public final class NodeAgent implements AutoCloseable {

    private final AgentConfig config;
    private final Placement placement;
    private final Optional<CloudMetadata> cloud;
    private final List<Collector> collectors;
    private final RecordSink sink;
    private final Clock clock;
    private final Consumer<String> problems;
    private final AgentCounters counters = new AgentCounters();
    private final ProgressReports reports;
    private final GpuSharing sharing;
    /** The jobs named after pods, by every source alike; what they say of pods of one name is said each round. */
    private final PodJobs podJobs;
    /** GPUs whose missing activity was said: said again only once they had a reading in between. */
    private final Set<String> activityUnknown = new HashSet<>();
    /** The labels no sample can carry that were said, by GPU, field and value: each once. */
    private final SaidOnceEach uncarriedLabels = new SaidOnceEach();
    private final Set<String> noticesSeen = new HashSet<>();
    private final Path noticesFile;
    /** False for a dry run: it reads what real runs remembered, and leaves the disk as it found it. */
    private final boolean remembersNotices;
    private final Duration interval;
    private Instant lastRound;
    private ScheduledExecutorService scheduler;
    private volatile AgentHttp http;
    private final java.util.concurrent.atomic.AtomicBoolean closed = new java.util.concurrent.atomic.AtomicBoolean();
    /** What this run said when the host's shutdown asked it to say that the instance stops; null before. */
    private CapacityEvent stopNotice;

    NodeAgent(AgentConfig config, Identity.Resolved identity, List<Collector> collectors, RecordSink sink,
            Clock clock, Consumer<String> problems) {
        this(config, identity, collectors, sink, clock, problems, true, GpuSharingSettings.podJobs(config));
    }

    private NodeAgent(AgentConfig config, Identity.Resolved identity, List<Collector> collectors, RecordSink sink,
            Clock clock, Consumer<String> problems, boolean remembersNotices, PodJobs podJobs) {
        this.config = config;
        this.remembersNotices = remembersNotices;
        this.placement = identity.placement();
        this.cloud = identity.cloud();
        this.collectors = List.copyOf(collectors);
        this.sink = sink;
        this.clock = clock;
        this.problems = problems;
        this.reports = new ProgressReports(placement, clock, Path.of(config.text("proc.root")));
        this.podJobs = podJobs;
        this.sharing = GpuSharingSettings.sharing(config, reports, placement.host(), clock, podJobs);
        this.interval = config.seconds("interval");
        this.noticesFile = Path.of(config.text("spool.dir")).resolve("notices-seen");
        loadNoticesSeen();
    }

    /** An agent for this node: identity resolved, collectors built from the configuration. */
    public static NodeAgent create(AgentConfig config, RecordSink sink, Clock clock, Consumer<String> problems) {
        PodJobs podJobs = GpuSharingSettings.podJobs(config);
        return new NodeAgent(config, Identity.resolve(config), collectors(config, podJobs), sink, clock, problems, true,
                podJobs);
    }

    /**
     * An agent that only shows what it would publish: it writes nothing on disk, so a real run
     * after it publishes the notices it printed. It still skips notices real runs published.
     */
    public static NodeAgent dryRun(AgentConfig config, RecordSink sink, Clock clock, Consumer<String> problems) {
        PodJobs podJobs = GpuSharingSettings.podJobs(config);
        return new NodeAgent(config, Identity.resolve(config), collectors(config, podJobs), sink, clock, problems,
                false, podJobs);
    }

    static List<Collector> collectors(AgentConfig config, PodJobs podJobs) {
        List<Collector> collectors = new ArrayList<>();
        if (config.flag("dcgm.enabled")) {
            collectors.add(new DcgmCollector(URI.create(config.text("dcgm.url")),
                    new DcgmScrape(config.list("dcgm.job-labels"), config.list("dcgm.team-labels"), podJobs),
                    Duration.ofSeconds(3)));
        }
        if (config.flag("nvidia-smi.enabled")) {
            // Unless told otherwise, nvidia-smi runs in its loop mode: one process for the agent's life.
            String command = config.get("nvidia-smi.command")
                    .orElse(NvidiaSmiCollector.defaultLoopingCommand(config.seconds("interval")));
            collectors.add(new NvidiaSmiCollector(command, Duration.ofSeconds(10)));
        }
        return collectors;
    }

    public Placement placement() {
        return placement;
    }

    public AgentCounters counters() {
        return counters;
    }

    /** Reads every collector once and publishes a sample per GPU covering the time since the last round. */
    public synchronized List<TelemetrySample> round() {
        Instant now = clock.instant();
        double seconds = lastRound == null ? interval.toMillis() / 1000.0
                : Math.max(0.001, Duration.between(lastRound, now).toMillis() / 1000.0);
        lastRound = now;
        counters.rounds.incrementAndGet();
        Map<String, GpuReading> merged = new TreeMap<>();
        Set<String> migParents = new HashSet<>();
        for (Collector collector : collectors) {
            Collector.Round round = collector.collect();
            for (String error : round.errors()) {
                counters.collectorError(collector.name());
                problems.accept(error);
            }
            Set<String> slicedHere = new HashSet<>();
            for (GpuReading reading : round.readings()) {
                int mig = reading.uuid().indexOf("/mig/");
                if (mig > 0) {
                    slicedHere.add(reading.uuid().substring(0, mig));
                } else if (migParents.contains(reading.uuid())) {
                    // A later collector sees a MIG-mode GPU whole; its slices already stand for it, and the unsliced
                    // rest that the collector of the slices reported under the GPU's own UUID takes none of it.
                    continue;
                }
                merged.merge(reading.uuid(), reading, GpuReading::merge);
            }
            migParents.addAll(slicedHere);
        }
        GpuSharing.Round users = sharing.users(merged.values());
        for (GpuSharing.Problem problem : users.problems()) {
            counters.collectorError(problem.source());
            problems.accept(problem.message());
        }
        // Advice on a setting, not an error of a collector: said, not counted.
        podJobs.drainSameNamed().forEach(problems);
        users.users().values().forEach(gpu -> counters.processesUnattributed.addAndGet(
                gpu.users().stream().filter(user -> !user.attributed()).count()));
        List<TelemetrySample> samples = new ArrayList<>();
        for (GpuReading reading : merged.values()) {
            Split split = users.of(reading.uuid()).map(sharing::split).orElse(Split.none());
            Optional<TelemetrySample> sample = sample(reading, split, users.holderOf(reading.uuid()), now, seconds);
            if (sample.isEmpty()) {
                continue;
            }
            samples.add(sample.get());
            counters.samplesCollected.incrementAndGet();
            if (sample.get().shared()) {
                counters.samplesShared.incrementAndGet();
            }
            sink.publish(Topics.TELEMETRY.name(), sample.get().gpuUuid(), Json.write(sample.get()), now.toEpochMilli());
        }
        return samples;
    }

    /**
     * The GPU's sample. A shared GPU's says {@value TelemetrySample#SHARED_JOB} with its jobs' allocations and
     * the node's team (whose the unallocated rest is). Otherwise its job is the first of: dcgm-exporter's labels,
     * the one job whose processes alone used it, the one pod that holds it by its DRA claims, a work report's
     * claim, the node's {@code job}. The part of a MIG-mode GPU that no instance holds runs nothing: a report's claim
     * of the GPU (by its UUID or index) is not its.
     */
    private Optional<TelemetrySample> sample(GpuReading reading, Split split, Optional<Owner> holder, Instant now,
            double seconds) {
        Double activity = reading.smActiveOrUtilization();
        noteActivity(reading.uuid(), activity);
        String parent = reading.uuid().contains("/mig/") ? reading.uuid().substring(0, reading.uuid().indexOf("/mig/"))
                : reading.uuid();
        boolean unsliced = DcgmScrape.UNALLOCATED_MIG.equals(reading.migProfile());
        Optional<ProgressReports.Claim> claim = unsliced ? Optional.empty()
                : reports.claimOf(reading.uuid(), reading.index(), now).or(() -> reports.claimOf(parent, null, now));
        Optional<Owner> owner = Optional.ofNullable(split.soleOwner()).or(() -> holder)
                .or(() -> claim.map(c -> new Owner(c.jobId(), c.team())));
        String labelledJob = carried(reading.uuid(), "jobId", reading.jobId());
        String labelledTeam = carried(reading.uuid(), "team", reading.team());
        String job = labelledJob != null ? labelledJob
                : owner.map(Owner::jobId).orElse(config.get("job").orElse(null));
        // An owner of no team known (a work report that names none) is on the node's team.
        String team = labelledTeam != null ? labelledTeam
                : owner.map(Owner::team).or(() -> config.get("team")).orElse(null);
        if (split.shared()) {
            job = TelemetrySample.SHARED_JOB;
            team = config.get("team").orElse(null);
        }
        try {
            TelemetrySample.Builder sample = TelemetrySample.builder()
                    .gpuUuid(reading.uuid())
                    .gpuIndex(reading.index() == null ? 0 : reading.index())
                    .gpuModel(reading.model())
                    .placement(placement)
                    .jobId(job)
                    .team(team)
                    .time(now)
                    .intervalSeconds(seconds)
                    .migProfile(reading.migProfile())
                    .gpuFraction(reading.gpuFraction())
                    .allocations(split.allocations());
            reading.values().forEach(sample::reading);
            return Optional.of(sample.smActive(activity).build());
        } catch (InvalidRecordException e) {
            counters.samplesSkipped.incrementAndGet();
            problems.accept("GPU " + reading.uuid() + ": " + e.getMessage() + "; no sample");
            return Optional.empty();
        }
    }

    /**
     * A job or team a GPU's labels give ({@code value}), where a sample can carry it; else null, so that the GPU is
     * sampled as if its labels named none (its next source of a job or team names it) rather than not at all. Said,
     * and counted as an error of dcgm-exporter (whose labels they are), once for each GPU, field and value.
     */
    private String carried(String gpu, String field, String value) {
        if (value == null) {
            return null;
        }
        try {
            return Check.identity(field, value);
        } catch (InvalidRecordException e) {
            if (uncarriedLabels.firstTime(gpu + '\n' + field + '\n' + value)) {
                counters.collectorError(DcgmCollector.NAME);
                problems.accept("GPU " + gpu + ": its labels' " + e.getMessage() + "; sampled as if they named none");
            }
            return null;
        }
    }

    private void noteActivity(String gpu, Double activity) {
        if (activity != null) {
            activityUnknown.remove(gpu);
            return;
        }
        counters.samplesActivityUnknown.incrementAndGet();
        if (activityUnknown.add(gpu)) {
            problems.accept("GPU " + gpu + ": no SM or graphics engine activity nor utilisation reading;"
                    + " sampled with its activity unknown");
        }
    }

    /** Asks the cloud for notices and publishes those not published before; returns the new ones. */
    public List<CapacityEvent> pollNotices() {
        if (cloud.isEmpty()) {
            return List.of();
        }
        synchronized (noticesSeen) {
            return publishNewNotices();
        }
    }

    private List<CapacityEvent> publishNewNotices() {
        List<CapacityEvent> fresh = new ArrayList<>();
        try {
            for (CapacityEvent notice : cloud.get().notices(placement, clock.instant())) {
                if (noticesSeen.add(notice.eventId())) {
                    fresh.add(notice);
                    counters.capacityEvents.incrementAndGet();
                    sink.publish(Topics.CAPACITY_EVENTS.name(), notice.instanceId(), Json.write(notice),
                            notice.noticedAt().toEpochMilli());
                    rememberNotice(notice.eventId());
                }
            }
        } catch (IOException e) {
            counters.collectorError(cloud.get().provider() + "-metadata");
            problems.accept(cloud.get().provider() + " metadata: " + e.getMessage());
        }
        return fresh;
    }

    /**
     * Starts the HTTP endpoint and the schedule (rounds, notice polls).
     *
     * @throws IllegalArgumentException when the endpoint would listen beyond loopback without an issuer key,
     *                                  or the issuer-keys file cannot be used
     */
    public synchronized void start() throws IOException {
        if (config.flag("progress.enabled")) {
            Optional<IssuerKeys> issuers = config.get("progress.issuer-keys-file")
                    .map(file -> IssuerKeys.fromFile(Path.of(file), problems));
            AgentHttp.Callers callers = new AgentHttp.Callers(issuers, placement.host(), clock);
            http = new AgentHttp(config.text("progress.host"), config.port("progress.port"), callers, reports,
                    new Endpoint(), problems);
        }
        // Two threads: a slow metadata service must not delay the samples.
        scheduler = Executors.newScheduledThreadPool(2, runnable -> {
            Thread thread = new Thread(runnable, "agent-rounds");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.scheduleAtFixedRate(guarded(this::round), 0, interval.toMillis(), TimeUnit.MILLISECONDS);
        if (cloud.isPresent()) {
            long period = config.seconds("notices.interval").toMillis();
            scheduler.scheduleWithFixedDelay(guarded(this::pollNotices), 0, period, TimeUnit.MILLISECONDS);
        }
    }

    /** What the endpoint's routes do here. */
    private final class Endpoint implements AgentHttp.Actions {
        @Override
        public void progress(JobProgress progress) {
            publishProgress(progress);
        }

        @Override
        public void rejected() {
            counters.progressRejected.incrementAndGet();
        }

        @Override
        public Map<String, Object> stopping() {
            return stoppingAnswer();
        }

        @Override
        public Map<String, Object> health() {
            return NodeAgent.this.health();
        }

        @Override
        public String metrics() {
            return metricsText();
        }
    }

    /** Port of the HTTP endpoint, once started. */
    public int httpPort() {
        return http == null ? -1 : http.port();
    }

    /**
     * Publishes, once a run, that the instance is shutting down: its GPUs then fall silent because
     * it stops, not because nobody watches them. Only the host's shutdown may ask for this, never
     * the agent's own stop (a restart says nothing of the instance). Returns what was said.
     */
    public CapacityEvent sayStopping() {
        synchronized (noticesSeen) {
            if (stopNotice == null) {
                Instant now = clock.instant();
                stopNotice = CapacityEvent.builder().schemaVersion(CapacityEvent.SCHEMA_VERSION)
                        .eventId(CapacityEvent.idOf(placement.provider(), placement.instanceId(),
                                CapacityEventKind.INSTANCE_STOPPING, now.toString()))
                        .placement(placement).kind(CapacityEventKind.INSTANCE_STOPPING).action("shutdown")
                        .noticedAt(now).source("agent").build();
                counters.capacityEvents.incrementAndGet();
                sink.publish(Topics.CAPACITY_EVENTS.name(), stopNotice.instanceId(), Json.write(stopNotice),
                        now.toEpochMilli());
                problems.accept("agent: said that instance " + placement.instanceId() + " is stopping");
            }
            return stopNotice;
        }
    }

    private Map<String, Object> stoppingAnswer() {
        CapacityEvent said = sayStopping();
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("instanceId", said.instanceId());
        answer.put("kind", said.kind().name());
        answer.put("eventId", said.eventId());
        answer.put("noticedAt", said.noticedAt().toString());
        return answer;
    }

    private void publishProgress(JobProgress progress) {
        counters.progressReports.incrementAndGet();
        sink.publish(Topics.JOB_PROGRESS.name(), progress.jobId(), Json.write(progress), progress.time()
                .toEpochMilli());
    }

    private Runnable guarded(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                // An exception would cancel the schedule; the agent must keep sampling.
                problems.accept("agent: " + e);
            }
        };
    }

    public Map<String, Object> health() {
        Map<String, Object> health = new LinkedHashMap<>();
        health.put("status", "UP");
        health.put("host", placement.host());
        health.put("instanceId", placement.instanceId());
        health.put("instanceType", placement.instanceType());
        health.put("provider", placement.provider());
        health.put("region", placement.region());
        health.put("lifecycle", placement.lifecycle().wire());
        health.put("rounds", counters.rounds());
        health.put("samplesCollected", counters.samplesCollected());
        health.put("samplesActivityUnknown", counters.samplesActivityUnknown());
        health.put("samplesSkipped", counters.samplesSkipped());
        health.put("samplesShared", counters.samplesShared());
        health.put("processesUnattributed", counters.processesUnattributed());
        health.put("progressReports", counters.progressReports());
        health.put("progressRejected", counters.progressRejected());
        health.put("progressRefusedFull", reports.refusedFull());
        health.put("processesTracked", reports.processesTracked());
        health.put("claimsTracked", reports.claimsTracked());
        health.put("httpRefused", httpRefusals());
        health.put("capacityEvents", counters.capacityEvents());
        health.put("collectorErrors", counters.collectorErrors());
        health.putAll(sink.stats());
        return health;
    }

    /** The counters in Prometheus text format, prefixed {@code gpuledger_agent_}. */
    public String metricsText() {
        StringBuilder text = new StringBuilder();
        counter(text, "rounds_total", "Collection rounds run", counters.rounds());
        counter(text, "samples_collected_total", "GPU samples made", counters.samplesCollected());
        counter(text, "samples_activity_unknown_total",
                "GPU samples made without any activity reading: charged, counted neither idle nor busy",
                counters.samplesActivityUnknown());
        counter(text, "samples_skipped_total", "GPUs seen whose readings could not make a valid sample",
                counters.samplesSkipped());
        counter(text, "samples_shared_total", "GPU samples of a GPU several jobs used, published with their shares",
                counters.samplesShared());
        counter(text, "processes_unattributed_total", "Processes seen on a GPU whose job could not be told, once a"
                + " round each: their use is left unallocated", counters.processesUnattributed());
        counter(text, "progress_reports_total", "Job work reports accepted", counters.progressReports());
        counter(text, "progress_rejected_total", "Job work reports refused", counters.progressRejected());
        counter(text, "progress_refused_full_total", "Job work reports refused because the agent already"
                + " remembers as many processes or GPU claims as it may", reports.refusedFull());
        gauge(text, "progress_processes", "Reporting processes the agent remembers", reports.processesTracked());
        gauge(text, "progress_gpu_claims", "GPU claims of jobs the agent remembers", reports.claimsTracked());
        text.append("# HELP gpuledger_agent_http_refused_total Requests the endpoint refused before a route read"
                + " them, by reason\n");
        text.append("# TYPE gpuledger_agent_http_refused_total counter\n");
        httpRefusals().forEach((reason, count) -> text.append("gpuledger_agent_http_refused_total{reason=\"")
                .append(reason).append("\"} ").append(count).append('\n'));
        counter(text, "capacity_events_total", "Capacity notices published", counters.capacityEvents());
        text.append("# HELP gpuledger_agent_collector_errors_total Errors of collectors, by collector\n");
        text.append("# TYPE gpuledger_agent_collector_errors_total counter\n");
        counters.collectorErrors()
                .forEach((name, count) -> text.append("gpuledger_agent_collector_errors_total{collector=\"")
                .append(name).append("\"} ").append(count).append('\n'));
        sink.stats().forEach((name, value) -> {
            String metric = name.replaceAll("([a-z])([A-Z])", "$1_$2").toLowerCase(java.util.Locale.ROOT);
            boolean gauge = name.endsWith("Now") || name.equals("pending");
            String family = "gpuledger_agent_records_" + metric + (gauge ? "" : "_total");
            text.append("# HELP ").append(family).append(" Records ").append(metric.replace('_', ' ')).append('\n');
            text.append("# TYPE ").append(family).append(gauge ? " gauge\n" : " counter\n");
            text.append(family).append(' ').append(value).append('\n');
        });
        return text.toString();
    }

    /** By reason; all zero before the endpoint starts, so that the families are there from the first scrape. */
    private Map<String, Long> httpRefusals() {
        AgentHttp endpoint = http;
        if (endpoint != null) {
            return endpoint.refusals();
        }
        Map<String, Long> none = new LinkedHashMap<>();
        for (String reason : AgentHttp.REFUSAL_REASONS) {
            none.put(reason, 0L);
        }
        return none;
    }

    private static void gauge(StringBuilder text, String name, String help, long value) {
        text.append("# HELP gpuledger_agent_").append(name).append(' ').append(help).append('\n');
        text.append("# TYPE gpuledger_agent_").append(name).append(" gauge\n");
        text.append("gpuledger_agent_").append(name).append(' ').append(value).append('\n');
    }

    private static void counter(StringBuilder text, String name, String help, long value) {
        text.append("# HELP gpuledger_agent_").append(name).append(' ').append(help).append('\n');
        text.append("# TYPE gpuledger_agent_").append(name).append(" counter\n");
        text.append("gpuledger_agent_").append(name).append(' ').append(value).append('\n');
    }

    private void loadNoticesSeen() {
        try {
            if (Files.exists(noticesFile)) {
                noticesSeen.addAll(Files.readAllLines(noticesFile, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            problems.accept("cannot read " + noticesFile + ": " + e.getMessage() + "; notices may be published again");
        }
    }

    /** Notices stay up for minutes; remembering them on disk keeps a restarted agent from publishing them twice. */
    private void rememberNotice(String eventId) {
        if (!remembersNotices) {
            return;
        }
        try {
            Files.createDirectories(noticesFile.getParent());
            Files.writeString(noticesFile, eventId + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException e) {
            problems.accept("cannot write " + noticesFile + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        // Not synchronized: a round under way holds the agent's lock until it ends, and close waits for it.
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (scheduler != null) {
            // A round under way finishes (its samples are published); only a stuck one is interrupted.
            scheduler.shutdown();
            try {
                if (!scheduler.awaitTermination(15, TimeUnit.SECONDS)) {
                    scheduler.shutdownNow();
                }
            } catch (InterruptedException e) {
                scheduler.shutdownNow();
                Thread.currentThread().interrupt();
            }
        }
        if (http != null) {
            http.close();
        }
        collectors.forEach(Collector::close);
        sharing.close();
    }
}
