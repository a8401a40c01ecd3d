package io.gpuledger.streams.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.JobPart;
import io.gpuledger.model.UsageTotals;
import io.gpuledger.model.UsageTotals.Sum;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** What each job took of a GPU's hour, when more jobs used it than a record lists by name. */
class JobPartsTest {

    @Test
    void shouldListTheFirstJobsByNameAndTheOthersByTeamSoThatEveryTeamKeepsWhatItsJobsTook() {
        // Given an hour of a GPU that 300 short jobs of 20 teams used one after another, job j costing j cents
        GpuRecent recent = new GpuRecent();
        Map<String, Double> byTeam = new TreeMap<>();
        double whole = 0;
        for (int job = 1; job <= 300; job++) {
            String team = "team-" + job % 20;
            recent.addParts(JobParts.sole("job-" + job, team, costing(job / 100.0)));
            byTeam.merge(team, job / 100.0, Double::sum);
            whole += job / 100.0;
        }

        // When the hour's parts are written, read back by a restarted engine, and one more job of a listed team
        // and one of a new team are added
        GpuRecent read = GpuRecent.CODEC.fromBytes(GpuRecent.CODEC.toBytes(recent));
        read.addParts(JobParts.sole("job-late", "team-3", costing(1)));
        read.addParts(JobParts.sole("job-other", "team-new", costing(2)));
        byTeam.merge("team-3", 1.0, Double::sum);
        byTeam.put("team-new", 2.0);
        whole += 3;
        List<JobPart> parts = read.hourParts.toContract();

        // Then the first 240 jobs are named, each with its own cost, the others in their team's unlisted part
        List<JobPart> named = parts.stream().filter(p -> !p.jobId().equals(JobPart.UNLISTED_JOB)).toList();
        assertThat(named).hasSize(JobPart.MAX_LISTED);
        assertThat(named.get(0).jobId()).isEqualTo("job-1");
        assertThat(named.get(239).jobId()).isEqualTo("job-240");
        assertThat(named.get(239).cost()).isCloseTo(2.40, within(1e-12));
        assertThat(parts).hasSize(JobPart.MAX_LISTED + 15);
        // 241..300 are of every team but team-new, the first 15 of which have an entry each; the others' go to the
        // first unlisted entry, so nothing is lost, and teams are kept as far as a record's entries go
        assertThat(parts.stream().mapToDouble(JobPart::cost).sum()).isCloseTo(whole, within(1e-9));
        assertThat(parts.stream().mapToDouble(JobPart::gpuSeconds).sum()).isCloseTo(302 * 60, within(1e-9));
        Map<String, Double> unlistedByTeam = parts.stream().filter(p -> p.jobId().equals(JobPart.UNLISTED_JOB))
                .collect(Collectors.toMap(JobPart::team, JobPart::cost));
        assertThat(unlistedByTeam.get("team-3")).as("jobs 243, 263, 283 and the late one")
                .isCloseTo(2.43 + 2.63 + 2.83 + 1, within(1e-12));
        assertThat(unlistedByTeam).doesNotContainKey("team-new");
    }

    @Test
    void shouldNameEveryJobOfAnHourOfFewerJobsThanItLists() {
        JobParts parts = new JobParts();
        for (int job = 1; job <= JobPart.MAX_LISTED; job++) {
            parts.addSole("job-" + job, "team-" + job % 7, costing(1));
        }
        parts.addSole("job-1", "team-1", costing(1));

        assertThat(parts.toContract()).hasSize(JobPart.MAX_LISTED)
                .noneMatch(part -> part.jobId().equals(JobPart.UNLISTED_JOB));
        assertThat(parts.toContract().get(0).cost()).isEqualTo(2.0);
    }

    @Test
    void shouldKeepWhatANewJobTookInPartsStoredFullOfNamedJobsBeforeJobsWereListedByTeam() throws IOException {
        // Parts as stored before: 255 entries, each a job of its own
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(bytes);
        out.writeByte(JobParts.MAX_ENTRIES);
        for (int job = 1; job <= JobParts.MAX_ENTRIES; job++) {
            out.writeUTF("job-" + job);
            out.writeUTF("team-a");
            out.writeDouble(60);
            out.writeDouble(1);
            out.writeDouble(0);
            out.writeDouble(0);
        }
        JobParts parts = JobParts.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

        parts.addSole("job-new", "team-b", costing(2));

        List<JobPart> read = parts.toContract();
        assertThat(read).hasSize(JobParts.MAX_ENTRIES);
        assertThat(read.stream().mapToDouble(JobPart::cost).sum()).isEqualTo(257.0);
        ByteArrayOutputStream again = new ByteArrayOutputStream();
        parts.write(new DataOutputStream(again));
        assertThat(again.toByteArray()[0] & 0xFF).isEqualTo(JobParts.MAX_ENTRIES);
    }

    @Test
    void shouldNeverHoldMoreEntriesThanItsStoredFormCountsWhateverTheJobsAreNamed() throws IOException {
        // A job really named like the entries of unlisted jobs, in 20 teams, then 300 other jobs of 60 teams: the
        // first 235 fill the entries, the others go to their team's entry (teams 0 to 19) or the first one
        JobParts parts = new JobParts();
        double whole = 0;
        for (int team = 0; team < 20; team++) {
            parts.addSole(JobPart.UNLISTED_JOB, "team-" + team, costing(1));
            whole += 1;
        }
        for (int job = 0; job < 300; job++) {
            parts.addSole("job-" + job, "team-" + job % 60, costing(1));
            whole += 1;
        }

        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        parts.write(new DataOutputStream(bytes));
        JobParts read = JobParts.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

        assertThat(read.toContract()).hasSize(JobParts.MAX_ENTRIES);
        assertThat(read.toContract().stream().mapToDouble(JobPart::cost).sum()).isEqualTo(whole);
    }

    @Test
    void shouldTakeANewJobAlikeBeforeAndAfterItsPartsAreStoredWhateverTheJobsAreNamed() throws IOException {
        // Given the parts of 240 jobs, the first of them really named like the entries of unlisted jobs
        JobParts parts = new JobParts();
        parts.addSole(JobPart.UNLISTED_JOB, "team-a", costing(1));
        for (int job = 2; job <= JobPart.MAX_LISTED; job++) {
            parts.addSole("job-" + job, "team-a", costing(1));
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        parts.write(new DataOutputStream(bytes));
        JobParts read = JobParts.read(new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())));

        // When a new job of another team comes to the parts and to their copy read back by a restarted engine
        parts.addSole("job-new", "team-b", costing(2));
        read.addSole("job-new", "team-b", costing(2));

        // Then both list it alike: the stored form cannot tell that job from a team's entry, so neither counts it
        assertThat(read.toContract()).isEqualTo(parts.toContract());
        assertThat(parts.toContract()).last().isEqualTo(new JobPart("job-new", "team-b", 60, 2, 0, 0));
    }

    private static UsageTotals costing(double cost) {
        return UsageTotals.builder().samples(6).sum(Sum.GPU_SECONDS, 60).sum(Sum.COST, cost).build();
    }
}
