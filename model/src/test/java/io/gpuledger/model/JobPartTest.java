package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Whom a shared GPU's part is charged to, as the metrics, the anomaly sums and the FOCUS rows read it. */
class JobPartTest {

    @Test
    void shouldChargeAListedPartToItsJobAndItsOwnTeam() {
        JobPart part = new JobPart("serve-a", "search", 3, 0.25, 0.001, 0);

        assertThat(part.jobCharged()).isEqualTo("serve-a");
        assertThat(part.teamCharged("platform")).isEqualTo("search");
    }

    @Test
    void shouldChargeAPartThatNamesNoTeamToTheNodesTeam() {
        JobPart part = new JobPart("notebook-7", null, 3, 0.25, 0.001, 0);

        assertThat(part.teamCharged("platform")).isEqualTo("platform");
        assertThat(part.teamCharged(null)).isNull();
    }

    @Test
    void shouldChargeATeamsUnlistedJobsToNoOneJob() {
        JobPart part = new JobPart("unlisted", "search", 3, 0.25, 0.001, 0);

        assertThat(part.jobCharged()).isNull();
        assertThat(part.teamCharged("platform")).isEqualTo("search");
        assertThat(JobPart.unlisted("unlisted")).isTrue();
        assertThat(JobPart.unlisted("unlisted-2")).isFalse();
        assertThat(JobPart.unlisted(null)).isFalse();
    }

    @Test
    void shouldWriteOnlyItsSixFieldsWhateverItAnswers() {
        JsonNode json = Json.MAPPER.valueToTree(new JobPart("serve-a", "search", 3, 0.25, 0.001, 0));

        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactlyInAnyOrder("jobId", "team", "gpuSeconds", "cost", "energyKwh",
                "unpricedSeconds");
    }
}
