package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookPayloadsTest {

    @Test
    void shouldWrapTheAnomalyInACostAnomalyEvent() throws IOException {
        CostAnomaly anomaly = SampleAnomalies.spendRate("ml-research", 0);

        byte[] body = WebhookPayloads.body(WebhookReceiver.Format.JSON, anomaly);

        JsonNode tree = Json.MAPPER.readTree(body);
        assertThat(tree.get("event").asText()).isEqualTo("cost.anomaly");
        assertThat(tree.get("deliveryId").asText()).isEqualTo("spend_rate:team:ml-research:2024-05-01T10:00:00Z");
        assertThat(tree.get("anomaly")).isEqualTo(Json.MAPPER.readTree(Json.write(anomaly)));
        assertThat(Json.read(body, WebhookPayloads.AnomalyEvent.class).anomaly()).isEqualTo(anomaly);
    }

    @Test
    void shouldShapeASlackMessageWithAFallbackAndFields() throws IOException {
        CostAnomaly anomaly = SampleAnomalies.spendRate("ml-research", 0);

        JsonNode message = Json.MAPPER.readTree(WebhookPayloads.body(WebhookReceiver.Format.SLACK, anomaly));

        assertThat(message.get("text").asText()).isEqualTo("CRITICAL spend rate anomaly, team ml-research: "
                + "512.40 USD against 120.00 USD expected (+392.40 USD, +327.0%)");
        JsonNode section = message.get("blocks").get(0);
        assertThat(section.get("type").asText()).isEqualTo("section");
        assertThat(section.get("text").get("type").asText()).isEqualTo("mrkdwn");
        assertThat(section.get("text").get("text").asText()).isEqualTo("*CRITICAL cost anomaly* · spend per hour of "
                + "team ml-research\nTeam ml-research spends 512.40 USD per hour against a baseline of 120.00 USD");
        assertThat(texts(section.get("fields"))).containsExactly(
                "*Kind*\nspend rate",
                "*Subject*\nteam ml-research",
                "*Expected*\n120.00 USD",
                "*Actual*\n512.40 USD",
                "*Impact*\n+392.40 USD, +327.0%",
                "*Root cause*\njob train-42: +300.00 USD (76% of the impact)",
                "*Window*\n2024-05-01 10:00–11:00 UTC");
        section.get("fields").forEach(field -> assertThat(field.get("type").asText()).isEqualTo("mrkdwn"));
        JsonNode context = message.get("blocks").get(1);
        assertThat(context.get("type").asText()).isEqualTo("context");
        assertThat(context.get("elements").get(0).get("text").asText())
                .isEqualTo("anomaly `spend_rate:team:ml-research:2024-05-01T10:00:00Z`"
                        + " · detected 2024-05-01 11:01 UTC");
    }

    @Test
    void shouldSayWhatIsNotKnownAndSpanDays() throws IOException {
        CostAnomaly anomaly = SampleAnomalies.priceSpike("aws-p5");

        JsonNode message = Json.MAPPER.readTree(WebhookPayloads.body(WebhookReceiver.Format.SLACK, anomaly));

        assertThat(message.get("text").asText()).isEqualTo("WARNING price spike anomaly, offer aws-p5: "
                + "1,234.50 EUR against 0.00 EUR expected (+1,234.50 EUR, nothing expected)");
        assertThat(texts(message.get("blocks").get(0).get("fields"))).contains(
                "*Root cause*\nnot known",
                "*Window*\n2024-05-01 09:50 – 2024-05-02 10:00 UTC");
    }

    @Test
    void shouldShowNamesAsTypedNotAsSlackMarkup() throws IOException {
        CostAnomaly anomaly = SampleAnomalies.spendRate("<!channel> & co", 0);

        JsonNode message = Json.MAPPER.readTree(WebhookPayloads.body(WebhookReceiver.Format.SLACK, anomaly));

        assertThat(message.get("text").asText()).contains("team &lt;!channel&gt; &amp; co")
                .doesNotContain("<!channel>");
        assertThat(texts(message.get("blocks").get(0).get("fields")))
                .contains("*Subject*\nteam &lt;!channel&gt; &amp; co");
    }

    private static List<String> texts(JsonNode fields) {
        List<String> texts = new ArrayList<>();
        fields.forEach(field -> texts.add(field.get("text").asText()));
        return texts;
    }
}
