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
    void shouldWriteOnlyItsSixFieldsWhateverItAnswersWhereItHoldsNoDarkTime() {
        JsonNode json = Json.MAPPER.valueToTree(new JobPart("serve-a", "search", 3, 0.25, 0.001, 0));

        List<String> fields = new ArrayList<>();
        json.fieldNames().forEachRemaining(fields::add);
        assertThat(fields).containsExactlyInAnyOrder("jobId", "team", "gpuSeconds", "cost", "energyKwh",
                "unpricedSeconds");
    }

    @Test
    void shouldWriteAnHoursDarkTimeOnlyWhereThereIsSomeAndReadAPartWrittenBeforeItAsHavingNone() throws Exception {
        JobPart dark = new JobPart("serve-a", "search", 3, 0.25, 0.001, 0, 60, 0.2);

        JsonNode json = Json.MAPPER.valueToTree(dark);
        JobPart read = Json.MAPPER.treeToValue(json, JobPart.class);
        JobPart before = Json.MAPPER.readValue("{\"jobId\":\"serve-a\",\"team\":\"search\",\"gpuSeconds\":3,"
                + "\"cost\":0.25,\"energyKwh\":0.001,\"unpricedSeconds\":0}", JobPart.class);

        assertThat(json.get("unmonitoredSeconds").asDouble()).isEqualTo(60.0);
        assertThat(json.get("unmonitoredCost").asDouble()).isEqualTo(0.2);
        assertThat(read).isEqualTo(dark);
        assertThat(before.unmonitoredSeconds()).isZero();
        assertThat(before.unmonitoredCost()).isZero();
        assertThat(before).isEqualTo(new JobPart("serve-a", "search", 3, 0.25, 0.001, 0));
    }
}
