package io.gpuledger.alerts.webhook;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuledger.model.CostAnomaly;
import io.gpuledger.model.Json;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * A cost anomaly as a Slack incoming-webhook message: a one-line {@code text} (what notifications
 * and clients without blocks show) and a section block with the figures as fields. Amounts have
 * two decimals and their currency.
 */
final class SlackMessage {

    /** Slack refuses a section text over 3000 characters and a field over 2000. */
    private static final int MAX_TEXT = 3000;
    private static final int MAX_FIELD = 2000;
    private static final DateTimeFormatter MINUTE =
            DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter TIME_OF_DAY =
            DateTimeFormatter.ofPattern("HH:mm", Locale.ROOT).withZone(ZoneOffset.UTC);

    private SlackMessage() {
    }

    static byte[] write(CostAnomaly anomaly) {
        ObjectNode message = Json.MAPPER.createObjectNode();
        message.put("text", fallback(anomaly));
        ArrayNode blocks = message.putArray("blocks");

        ObjectNode section = blocks.addObject().put("type", "section");
        section.set("text", mrkdwn(clip("*" + anomaly.severity() + " cost anomaly* · " + escape(anomaly.measure())
                + " of " + escape(subject(anomaly)) + "\n" + escape(anomaly.summary()), MAX_TEXT)));
        ArrayNode fields = section.putArray("fields");
        fields.add(field("Kind", kind(anomaly)));
        fields.add(field("Subject", escape(subject(anomaly))));
        fields.add(field("Expected", money(anomaly.expected(), anomaly.currency())));
        fields.add(field("Actual", money(anomaly.actual(), anomaly.currency())));
        fields.add(field("Impact", impact(anomaly)));
        fields.add(field("Root cause", rootCause(anomaly)));
        fields.add(field("Window", window(anomaly.windowStart(), anomaly.windowEnd())));

        ObjectNode context = blocks.addObject().put("type", "context");
        context.putArray("elements").add(mrkdwn(clip("anomaly `" + escape(anomaly.id()) + "` · detected "
                + MINUTE.format(anomaly.detectedAt()) + " UTC", MAX_FIELD)));
        return Json.write(message);
    }

    /**
     * One line, plain: {@code CRITICAL spend rate anomaly, team ml: 512.40 USD against 120.00 USD expected (+392.40
     * USD, +327.0%)}.
     */
    static String fallback(CostAnomaly anomaly) {
        return oneLine(anomaly.severity() + " " + kind(anomaly) + " anomaly, " + escape(subject(anomaly)) + ": "
                + money(anomaly.actual(), anomaly.currency()) + " against "
                + money(anomaly.expected(), anomaly.currency()) + " expected (" + impact(anomaly) + ")");
    }

    static String money(double amount, String currency) {
        return String.format(Locale.ROOT, "%,.2f %s", amount, currency);
    }

    private static String impact(CostAnomaly anomaly) {
        String money = String.format(Locale.ROOT, "%+,.2f %s", anomaly.impact(), anomaly.currency());
        return anomaly.impactPercent() == null
                ? money + ", nothing expected"
                : money + ", " + String.format(Locale.ROOT, "%+.1f%%", anomaly.impactPercent());
    }

    private static String rootCause(CostAnomaly anomaly) {
        CostAnomaly.Cause cause = anomaly.rootCause();
        if (cause == null) {
            return "not known";
        }
        return escape(cause.dimension() + " " + cause.id()) + ": "
                + String.format(Locale.ROOT, "%+,.2f %s (%.0f%% of the impact)",
                        cause.impact(), anomaly.currency(), cause.share() * 100);
    }

    /** {@code 2024-05-01 10:00–11:00 UTC}, or both dates when the window spans midnight. */
    static String window(Instant start, Instant end) {
        boolean sameDay = start.atZone(ZoneOffset.UTC).toLocalDate().equals(end.atZone(ZoneOffset.UTC).toLocalDate());
        return MINUTE.format(start) + (sameDay ? "–" + TIME_OF_DAY.format(end) : " – " + MINUTE.format(end))
                + " UTC";
    }

    private static String kind(CostAnomaly anomaly) {
        return anomaly.kind().name().toLowerCase(Locale.ROOT).replace('_', ' ');
    }

    private static String subject(CostAnomaly anomaly) {
        return anomaly.dimension() + " " + anomaly.subject();
    }

    private static ObjectNode field(String label, String value) {
        return mrkdwn(clip("*" + label + "*\n" + value, MAX_FIELD));
    }

    private static ObjectNode mrkdwn(String text) {
        return Json.MAPPER.createObjectNode().put("type", "mrkdwn").put("text", text);
    }

    /** Slack reads {@code &}, {@code <} and {@code >} as markup; names from telemetry must show as typed. */
    private static String escape(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String oneLine(String text) {
        return text.replaceAll("\\s*[\\r\\n]+\\s*", " ");
    }

    private static String clip(String text, int max) {
        return text.length() <= max ? text : text.substring(0, max - 1) + "…";
    }
}
