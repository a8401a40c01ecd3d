package io.gpuledger.ingest.agent.share;

import io.gpuledger.ingest.agent.collect.GpuReading;
import io.gpuledger.ingest.agent.owners.ProcessOwners;
import io.gpuledger.ingest.agent.usage.GpuUser;
import io.gpuledger.ingest.agent.usage.GpuUsers;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.UsageSource;
import io.gpuledger.model.Check;
import io.gpuledger.model.InvalidRecordException;
import io.gpuledger.model.SharePolicy;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Who used each GPU of a round and how its interval is split among their jobs. A GPU's users come from the
 * first source that sees any, in this order: its collector's own (dcgm-exporter's per-pod series), then each
 * {@link UsageSource} in turn (HAMi's per-container metrics, nvidia-smi's process lists). Sources are read only
 * when a GPU still has no users, once a round. A source that does not say the GPU's memory (HAMi's) has it from the
 * GPU's own reading, where its collector says it (dcgm-exporter's free and used memory, nvidia-smi's
 * {@code memory.total}). A process's job is then looked for ({@link ProcessOwners}); one nobody can tell stays
 * unattributed.
 */
public final class GpuSharing {

    /** Unnameable owners said, by GPU, job and team: each once, however many rounds see it. */
    private final SaidOnceEach saidUnnameable = new SaidOnceEach();

    /** Something a source or a lookup could not read, and which one. */
    public record Problem(String source, String message) {
    }

    /**
     * The users of each GPU (or slice) in a round, by its UUID, the one pod that holds a GPU where Kubernetes
     * allocated it by a DRA claim, and what could not be read.
     */
    public record Round(Map<String, GpuUsers> users, Map<String, Owner> holders, List<Problem> problems) {

        public Optional<GpuUsers> of(String gpu) {
            return Optional.ofNullable(users.get(gpu));
        }

        public Optional<Owner> holderOf(String gpu) {
            return Optional.ofNullable(holders.get(gpu));
        }
    }

    /** Who holds a GPU by allocation, whether or not anyone is seen using it. */
    @FunctionalInterface
    public interface GpuHolders {
        Optional<Owner> holderOf(String gpu);
    }

    private final SharePolicy policy;
    private final boolean collectorsUsers;
    private final List<UsageSource> sources;
    private final ProcessOwners owners;
    private final GpuHolders holders;

    public GpuSharing(SharePolicy policy, boolean collectorsUsers, List<UsageSource> sources, ProcessOwners owners) {
        this(policy, collectorsUsers, sources, owners, gpu -> Optional.empty());
    }

    /**
     * @param collectorsUsers whether the users collectors saw themselves (dcgm-exporter's pods) are taken
     * @param sources         the other sources, in order
     * @param holders         who holds each GPU by allocation (DRA claims)
     */
    public GpuSharing(SharePolicy policy, boolean collectorsUsers, List<UsageSource> sources, ProcessOwners owners,
            GpuHolders holders) {
        this.policy = policy;
        this.collectorsUsers = collectorsUsers;
        this.sources = List.copyOf(sources);
        this.owners = owners;
        this.holders = holders;
    }

    /** No GPU is ever split: every sample is one job's, as before shares existed. */
    public static GpuSharing off() {
        return off(pid -> Optional.empty());
    }

    /** No GPU split, and {@code errors}' errors said each round (a kubelet read only to name jobs). */
    public static GpuSharing off(ProcessOwners errors) {
        return new GpuSharing(SharePolicy.SM, false, List.of(), errors);
    }

    public SharePolicy policy() {
        return policy;
    }

    /** The users of this round's GPUs, each with its owner where one can be told. */
    public Round users(Collection<GpuReading> readings) {
        Map<String, GpuUsers> found = new LinkedHashMap<>();
        List<Problem> problems = new ArrayList<>();
        List<GpuReading> without = new ArrayList<>();
        for (GpuReading reading : readings) {
            if (collectorsUsers && reading.users() != null) {
                found.put(reading.uuid(), reading.users().withMemoryTotalBytesIfUnknown(reading.memoryTotalBytes()));
            } else {
                without.add(reading);
            }
        }
        for (UsageSource source : sources) {
            if (without.isEmpty()) {
                break;
            }
            UsageSource.Result result = readSafely(source);
            result.errors().forEach(error -> problems.add(new Problem(source.name(), error)));
            without.removeIf(reading -> {
                GpuUsers users = result.byGpu().get(reading.uuid());
                if (users == null || users.users().isEmpty()) {
                    return false;
                }
                found.put(reading.uuid(), users.withMemoryTotalBytesIfUnknown(reading.memoryTotalBytes()));
                return true;
            });
        }
        Map<String, GpuUsers> owned = new LinkedHashMap<>();
        found.forEach((gpu, users) -> owned.put(gpu, withOwners(users, problems)));
        Map<String, Owner> held = new LinkedHashMap<>();
        for (GpuReading reading : readings) {
            try {
                holders.holderOf(reading.uuid())
                        .filter(owner -> nameable(reading.uuid(), owner, job -> "the pod its DRA claim is reserved"
                                + " for, job '" + job + "', is not taken as its job", problems))
                        .ifPresent(owner -> held.put(reading.uuid(), owner));
            } catch (RuntimeException e) {
                problems.add(new Problem("process-owners", "GPU " + reading.uuid() + ": " + e));
            }
        }
        owners.drainErrors().forEach(error -> problems.add(new Problem("process-owners", error)));
        return new Round(owned, held, problems);
    }

    /** A source's fault costs its own view, not the round's samples. */
    private static UsageSource.Result readSafely(UsageSource source) {
        try {
            return source.read();
        } catch (RuntimeException e) {
            return UsageSource.Result.failed(source.name() + ": " + e);
        }
    }

    /** Stops what the sources left running. */
    public void close() {
        sources.forEach(UsageSource::close);
    }

    /** How the GPU's interval is charged, by this agent's policy. */
    public Split split(GpuUsers users) {
        return ShareSplit.split(users, policy);
    }

    private GpuUsers withOwners(GpuUsers users, List<Problem> problems) {
        List<GpuUser> owned = new ArrayList<>();
        for (GpuUser user : users.users()) {
            GpuUser found = user;
            if (!user.attributed() && user.pid() != null) {
                try {
                    found = owners.ownerOf(user.pid(), users.gpu()).map(user::ownedBy).orElse(user);
                } catch (RuntimeException e) {
                    problems.add(new Problem("process-owners", "process " + user.pid() + ": " + e));
                }
            }
            owned.add(nameable(found, users, problems));
        }
        return new GpuUsers(users.gpu(), users.source(), owned, users.memoryTotalBytes());
    }

    /**
     * The user as it is, or unattributed if its job or team cannot be named in a sample (a {@code |} or over 256
     * characters: a Slurm account, a label, a report): a sample naming it would be refused, and its GPU, or the
     * whole round, lost with it. Said once for each GPU, job and team.
     */
    private GpuUser nameable(GpuUser user, GpuUsers users, List<Problem> problems) {
        if (!user.attributed()) {
            return user;
        }
        Function<String, String> befell = job -> (user.pid() != null ? "process " + user.pid() : "a container")
                + " of job '" + job + "' is counted as unattributed";
        return nameable(users.gpu(), user.owner(), befell, problems) ? user
                : new GpuUser(user.pid(), null, user.smRatio(), user.memoryBytes());
    }

    /**
     * Whether a sample can name {@code owner}'s job and team; if not, says so once for the GPU, job and team: what
     * {@code befell} it, given its job (shortened).
     */
    private boolean nameable(String gpu, Owner owner, Function<String, String> befell, List<Problem> problems) {
        try {
            Check.allocatedJobId(owner.jobId());
            if (owner.team() != null) {
                Check.identity("team", owner.team());
            }
            return true;
        } catch (InvalidRecordException e) {
            if (saidUnnameable.firstTime(gpu + "\n" + owner.jobId() + "\n" + owner.team())) {
                problems.add(new Problem("process-owners", "GPU " + gpu + ": " + befell.apply(shortened(owner.jobId()))
                        + ", as a sample cannot name it (" + e.getMessage() + ")"));
            }
            return false;
        }
    }

    private static String shortened(String text) {
        return text.length() <= 64 ? text : text.substring(0, 64) + "…";
    }
}
