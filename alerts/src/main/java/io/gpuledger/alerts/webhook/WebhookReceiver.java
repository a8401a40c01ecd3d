package io.gpuledger.alerts.webhook;

import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import java.net.URI;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * One place cost anomalies are sent to. Built by {@link WebhookReceivers#from} from configuration.
 *
 * @param name        the receiver's configured name; part of the key of its deliveries, so it must not change
 *                    while anomalies are in flight
 * @param url         where anomalies are posted
 * @param format      the shape of the body
 * @param secret      the secrets deliveries are signed with, newest first, separated by commas or spaces
 *                    ({@link WebhookSignature#secrets}); empty only for a Slack receiver, which is then sent
 *                    unsigned
 * @param minSeverity the least severe anomaly sent; null: all
 * @param kinds       the kinds of anomaly sent; empty: all
 * @param allowHttp   whether signed deliveries may go over plain {@code http://}, where the network between is
 *                    trusted: anyone on the path could otherwise read them and replay them within the tolerance
 */
public record WebhookReceiver(String name, URI url, Format format, String secret, CostAnomaly.Severity minSeverity,
        Set<AnomalyKind> kinds, boolean allowHttp) {

    /** Letters, digits, dash and underscore: the name is a segment of a configuration key and of a record key. */
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");

    public enum Format {
        /** The generic, signed {@code cost.anomaly} event (see docs/webhooks.md). */
        JSON,
        /** A Slack incoming-webhook message. */
        SLACK;

        /** {@code json} or {@code slack}, as written in configuration. */
        public String configName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public WebhookReceiver {
        if (!isValidName(name)) {
            throw new IllegalArgumentException("name must be 1 to 64 letters, digits, '-' or '_', was '" + name + "'");
        }
        if (url == null) {
            throw new IllegalArgumentException("url is required");
        }
        String scheme = url.getScheme() == null ? "" : url.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            throw new IllegalArgumentException("url must start with http:// or https://, its scheme was '" + scheme + "'");
        }
        if (url.getHost() == null || url.getHost().isEmpty()) {
            throw new IllegalArgumentException("url has no host name");
        }
        if (format == null) {
            throw new IllegalArgumentException("format is required");
        }
        secret = secret == null ? "" : secret.strip();
        if (format == Format.JSON && secret.isEmpty()) {
            throw new IllegalArgumentException("secret is required for the json format: its deliveries are signed");
        }
        List<String> secrets = WebhookSignature.secrets(secret);
        for (String each : secrets) {
            try {
                WebhookSignature.key(each);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("secret is malformed: " + e.getMessage());
            }
        }
        // The fields are not set yet in a compact constructor: judged on the parameters.
        if (scheme.equals("http") && !secrets.isEmpty() && !allowHttp) {
            throw new IllegalArgumentException("url is http:// but deliveries are signed: use https://, or set "
                    + WebhookReceivers.ALLOW_HTTP + "=true where the network to the receiver is trusted");
        }
        kinds = kinds == null ? Set.of() : Set.copyOf(kinds);
    }

    /** Letters, digits, '-' and '_', at most 64, not starting with '-' or '_'. */
    public static boolean isValidName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** Whether this receiver wants {@code anomaly}, by its severity and kind filters. */
    public boolean accepts(CostAnomaly anomaly) {
        boolean severeEnough = minSeverity == null || anomaly.severity().compareTo(minSeverity) >= 0;
        return severeEnough && (kinds.isEmpty() || kinds.contains(anomaly.kind()));
    }

    /** Whether deliveries carry an HMAC signature. */
    public boolean signs() {
        return !secrets().isEmpty();
    }

    /** The secrets deliveries are signed with, newest first. */
    public List<String> secrets() {
        return WebhookSignature.secrets(secret);
    }

    /**
     * Leaves out the secret and the URL's path and query: a Slack webhook URL carries its token
     * in the path, and this text ends up in logs.
     */
    @Override
    public String toString() {
        return "WebhookReceiver[name=" + name + ", url=" + url.getScheme() + "://" + url.getHost()
                + (url.getPort() < 0 ? "" : ":" + url.getPort()) + "/…"
                + ", format=" + format.configName() + ", signed=" + signs()
                + ", minSeverity=" + minSeverity + ", kinds=" + kinds + (allowHttp ? ", allowHttp" : "") + "]";
    }
}
