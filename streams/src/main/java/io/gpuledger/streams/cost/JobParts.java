package io.gpuledger.streams.cost;

import io.gpuledger.model.JobPart;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * What each job of a shared GPU's minute took of it so far ({@link SharedCharge}'s job parts, added up, and all
 * of what a sample of one job was charged in a minute that was also shared, before or after): kept
 * in the GPU's stored state with its window, so that a restarted engine goes on from the same figures, and
 * written in the window's records as {@link JobPart}s. One entry per job and team, in the order first seen.
 */
final class JobParts {

    /**
     * The most entries stored: their number is one unsigned byte, as the window's counted keys are. The first
     * {@link JobPart#MAX_LISTED} jobs have one each; the entries left hold, team by team, what the jobs after them
     * took ({@link JobPart#UNLISTED_JOB}), and once those are taken too, the first such entry holds the rest.
     */
    static final int MAX_ENTRIES = 255;

    private static final int GPU_SECONDS = Sum.GPU_SECONDS.ordinal();
    private static final int COST = Sum.COST.ordinal();
    private static final int ENERGY_KWH = Sum.ENERGY_KWH.ordinal();
    private static final int UNPRICED_SECONDS = Sum.UNPRICED_SECONDS.ordinal();

    private final List<Entry> entries = new ArrayList<>(4);

    private static final class Entry {
        final String jobId;
        final String team;
        double gpuSeconds;
        double cost;
        double energyKwh;
        double unpricedSeconds;
        /** In an hour: the time no sample covered in minutes that were the job's alone, and its estimated cost. */
        double unmonitoredSeconds;
        double unmonitoredCost;

        Entry(String jobId, String team) {
            this.jobId = jobId;
            this.team = team;
        }
    }

    /**
     * The parts of a minute that was all one job's: {@code jobId} of team {@code team}, charged {@code totals}, its
     * unmonitored time included.
     */
    static JobParts sole(String jobId, String team, UsageTotals totals) {
        JobParts parts = new JobParts();
        parts.addSole(jobId, team, totals);
        parts.addUnmonitored(jobId, team, totals);
        return parts;
    }

    /** Adds the time no sample covered of {@code totals}, in a minute that was {@code jobId}'s alone, to its part. */
    void addUnmonitored(String jobId, String team, UsageTotals totals) {
        if (totals.unmonitoredSeconds() > 0 || totals.unmonitoredCost() > 0) {
            Entry entry = entryOf(jobId, team);
            entry.unmonitoredSeconds += totals.unmonitoredSeconds();
            entry.unmonitoredCost += totals.unmonitoredCost();
        }
    }

    /** Adds each job's part of the latest sample's split that {@code targets} hold. */
    void add(ShareTargets targets, SharedCharge.Slots split) {
        for (int job = 0; job < targets.jobCount(); job++) {
            double[] part = split.sums[job];
            addTo(entryOf(targets.ids[job], targets.ids[targets.teamOf[job]]), part[GPU_SECONDS], part[COST],
                    part[ENERGY_KWH], part[UNPRICED_SECONDS]);
        }
    }

    /** Adds what a sample of one job, {@code jobId} of team {@code team}, was charged: all of it is that job's. */
    void addSole(String jobId, String team, UsageTotals charged) {
        addTo(entryOf(jobId, team), charged.gpuSeconds(), charged.cost(), charged.energyKwh(),
                charged.unpricedSeconds());
    }

    /** As {@link #addSole}, for what a window held before its first shared sample. */
    void addSole(String jobId, String team, RunningTotals charged) {
        addTo(entryOf(jobId, team), charged.sum(Sum.GPU_SECONDS), charged.sum(Sum.COST),
                charged.sum(Sum.ENERGY_KWH), charged.sum(Sum.UNPRICED_SECONDS));
    }

    /** Adds every entry of {@code other}, job by job. */
    void addAll(JobParts other) {
        for (Entry entry : other.entries) {
            Entry into = entryOf(entry.jobId, entry.team);
            addTo(into, entry.gpuSeconds, entry.cost, entry.energyKwh, entry.unpricedSeconds);
            into.unmonitoredSeconds += entry.unmonitoredSeconds;
            into.unmonitoredCost += entry.unmonitoredCost;
        }
    }

    private static void addTo(Entry entry, double gpuSeconds, double cost, double energyKwh, double unpricedSeconds) {
        entry.gpuSeconds += gpuSeconds;
        entry.cost += cost;
        entry.energyKwh += energyKwh;
        entry.unpricedSeconds += unpricedSeconds;
    }

    boolean isEmpty() {
        return entries.isEmpty();
    }

    /** The parts as the contract writes them; a rounding below zero is written as zero. */
    List<JobPart> toContract() {
        List<JobPart> parts = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            parts.add(new JobPart(entry.jobId, entry.team, Math.max(0, entry.gpuSeconds), Math.max(0, entry.cost),
                    Math.max(0, entry.energyKwh), Math.max(0, entry.unpricedSeconds),
                    Math.max(0, entry.unmonitoredSeconds), Math.max(0, entry.unmonitoredCost)));
        }
        return parts;
    }

    /**
     * The entry of {@code jobId} and {@code team}, added if new. Past {@link JobPart#MAX_LISTED} jobs, a new job's
     * is its team's unlisted entry, and past {@link #MAX_ENTRIES} entries the first unlisted one: what a job took
     * is never dropped.
     */
    private Entry entryOf(String jobId, String team) {
        Entry found = find(jobId, team);
        if (found != null) {
            return found;
        }
        if (entries.size() < MAX_ENTRIES && listed() < JobPart.MAX_LISTED) {
            return added(jobId, team);
        }
        Entry teams = find(JobPart.UNLISTED_JOB, team);
        if (teams != null) {
            return teams;
        }
        if (entries.size() < MAX_ENTRIES) {
            return added(JobPart.UNLISTED_JOB, team);
        }
        for (Entry entry : entries) {
            if (entry.jobId.equals(JobPart.UNLISTED_JOB)) {
                return entry;
            }
        }
        // Only parts stored before jobs were listed by team can have all their entries named: the last one takes it.
        return entries.get(entries.size() - 1);
    }

    /**
     * How many entries name a job of their own: counted, not kept, so that parts read back count as they did (a job
     * really named {@link JobPart#UNLISTED_JOB} is not told from a team's entry in the stored form). Only a new job
     * counts them, and there are at most {@link #MAX_ENTRIES}.
     */
    private int listed() {
        int listed = 0;
        for (Entry entry : entries) {
            if (!entry.jobId.equals(JobPart.UNLISTED_JOB)) {
                listed++;
            }
        }
        return listed;
    }

    private Entry find(String jobId, String team) {
        for (Entry entry : entries) {
            if (entry.jobId.equals(jobId) && entry.team.equals(team)) {
                return entry;
            }
        }
        return null;
    }

    private Entry added(String jobId, String team) {
        Entry entry = new Entry(jobId, team);
        entries.add(entry);
        return entry;
    }

    /** Whether a part holds unmonitored time: only an hour's parts can, and only those need it written. */
    static boolean holdUnmonitored(JobParts parts) {
        if (parts != null) {
            for (Entry entry : parts.entries) {
                if (entry.unmonitoredSeconds != 0 || entry.unmonitoredCost != 0) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Writes {@code parts} as {@link #read} reads them: none for null; their unmonitored time too if told to. */
    static void write(JobParts parts, DataOutput out, boolean withUnmonitored) throws IOException {
        if (parts == null) {
            out.writeByte(0);
        } else {
            parts.write(out, withUnmonitored);
        }
    }

    /** As {@link #write(JobParts, DataOutput, boolean)}, without unmonitored time: a window's parts hold none. */
    static void write(JobParts parts, DataOutput out) throws IOException {
        write(parts, out, false);
    }

    void write(DataOutput out) throws IOException {
        write(out, false);
    }

    private void write(DataOutput out, boolean withUnmonitored) throws IOException {
        out.writeByte(entries.size());
        for (Entry entry : entries) {
            out.writeUTF(entry.jobId);
            out.writeUTF(entry.team);
            out.writeDouble(entry.gpuSeconds);
            out.writeDouble(entry.cost);
            out.writeDouble(entry.energyKwh);
            out.writeDouble(entry.unpricedSeconds);
            if (withUnmonitored) {
                out.writeDouble(entry.unmonitoredSeconds);
                out.writeDouble(entry.unmonitoredCost);
            }
        }
    }

    /** Reads what {@link #write} wrote: null for no entry, as a window no sample of which was shared holds. */
    static JobParts read(DataInput in) throws IOException {
        return read(in, false);
    }

    /** Reads what {@link #write(JobParts, DataOutput, boolean)} wrote, told whether it wrote unmonitored time. */
    static JobParts read(DataInput in, boolean withUnmonitored) throws IOException {
        int count = in.readUnsignedByte();
        if (count == 0) {
            return null;
        }
        JobParts parts = new JobParts();
        for (int i = 0; i < count; i++) {
            Entry entry = new Entry(in.readUTF(), in.readUTF());
            entry.gpuSeconds = in.readDouble();
            entry.cost = in.readDouble();
            entry.energyKwh = in.readDouble();
            entry.unpricedSeconds = in.readDouble();
            if (withUnmonitored) {
                entry.unmonitoredSeconds = in.readDouble();
                entry.unmonitoredCost = in.readDouble();
            }
            parts.entries.add(entry);
        }
        return parts;
    }
}
