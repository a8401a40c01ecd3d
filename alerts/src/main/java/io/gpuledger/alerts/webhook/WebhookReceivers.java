package io.gpuledger.alerts.webhook;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Builds the webhook receivers from their settings ({@link AlertSettings#webhooks}), one group of keys per
 * receiver:
 *
 * <pre>
 * gpuledger.webhooks.finance.url=https://finance.example.com/hooks/gpu-ledger
 * gpuledger.webhooks.finance.secret=…
 * gpuledger.webhooks.finance.min-severity=critical
 * gpuledger.webhooks.ops-slack.url=https://hooks.slack.com/services/…
 * gpuledger.webhooks.ops-slack.format=slack
 * gpuledger.webhooks.ops-slack.kinds=price-spike,budget-burn
 * </pre>
 *
 * The URL and the secret can each come from a file instead ({@code url-file}, {@code secret-file}):
 * a Secret mounted as a volume, so that neither is in the environment. Setting both forms of one
 * is an error, so that neither wins unnoticed.
 */
public final class WebhookReceivers {

    /** What every key of a receiver starts with; error messages name keys in full. */
    public static final String PREFIX = "gpuledger.webhooks.";
    public static final String URL = "url";
    /** {@code json} (the default) or {@code slack}. */
    public static final String FORMAT = "format";
    /** The HMAC key; required for {@code json}, optional for {@code slack}. */
    public static final String SECRET = "secret";
    /** {@code warning} (the default: everything) or {@code critical}. */
    public static final String MIN_SEVERITY = "min-severity";
    /**
     * A comma-separated list of anomaly kinds ({@code spend-rate, budget-burn, price-spike, cost-per-throughput});
     * empty: all.
     */
    public static final String KINDS = "kinds";
    /** A file holding the secret (a mounted Secret), instead of {@link #SECRET}. */
    public static final String SECRET_FILE = "secret-file";
    /**
     * A file holding the URL (a mounted Secret), instead of {@link #URL}. While the file does not
     * exist the receiver is left out: an optional Secret that was not made configures none.
     */
    public static final String URL_FILE = "url-file";
    /** {@code true} lets a signed receiver have an {@code http://} URL; {@code false} (the default) refuses it. */
    public static final String ALLOW_HTTP = "allow-http";

    static final List<String> SETTINGS = List.of(URL, URL_FILE, FORMAT, SECRET, SECRET_FILE, MIN_SEVERITY, KINDS,
            ALLOW_HTTP);

    private WebhookReceivers() {
    }

    /**
     * The receivers {@code configured}, sorted by name.
     *
     * @param leftOut told of each receiver left out because its {@code url-file} does not exist
     * @throws IllegalArgumentException naming every key that is unknown, missing or malformed, or a
     *                                  file that exists but cannot be read or is empty
     */
    public static List<WebhookReceiver> from(AlertSettings.Webhooks configured, Consumer<String> leftOut) {
        List<String> problems = new ArrayList<>();
        for (String key : new TreeSet<>(configured.given().keySet())) {
            if (key.indexOf('.') < 0) {
                problems.add(PREFIX + key + ": not a webhook setting; expected <name>.<setting> with a setting of "
                        + SETTINGS);
            }
        }
        List<WebhookReceiver> receivers = new ArrayList<>();
        new TreeMap<>(configured.receivers()).forEach((name, settings) -> {
            for (String setting : new TreeSet<>(settings.given().keySet())) {
                if (!SETTINGS.contains(setting)) {
                    problems.add(PREFIX + name + "." + setting
                            + ": not a webhook setting; expected <name>.<setting> with a setting of " + SETTINGS);
                }
            }
            WebhookReceiver receiver = receiver(PREFIX + name + ".", name, settings, problems, leftOut);
            if (receiver != null) {
                receivers.add(receiver);
            }
        });
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(
                    "invalid webhook configuration:\n  " + String.join("\n  ", problems));
        }
        return List.copyOf(receivers);
    }

    /**
     * The receiver {@code name}, or null after adding what is wrong with it to {@code problems}, or
     * after telling {@code leftOut} that its URL's file does not exist.
     */
    private static WebhookReceiver receiver(String keyPrefix, String name, AlertSettings.Webhook settings,
            List<String> problems, Consumer<String> leftOut) {
        int known = problems.size();
        if (!WebhookReceiver.isValidName(name)) {
            problems.add(keyPrefix + "*: the receiver name '" + name
                    + "' must be 1 to 64 letters, digits, '-' or '_', starting with a letter or digit");
            return null;
        }
        WebhookReceiver.Format format = format(keyPrefix, settings.format().strip(), problems);
        CostAnomaly.Severity minSeverity = minSeverity(keyPrefix, given(settings.minSeverity()), problems);
        Set<AnomalyKind> kinds = kinds(keyPrefix, given(settings.kinds()), problems);
        boolean allowHttp = allowHttp(keyPrefix, settings.allowHttp().strip(), problems);
        String url = given(settings.url());
        String urlFile = given(settings.urlFile());
        if (problems.size() == known && url.isEmpty() && isAbsent(urlFile)) {
            leftOut.accept("no webhook receiver " + name + ": " + keyPrefix + URL_FILE + " names " + urlFile
                    + ", which does not exist");
            return null;
        }
        URI uri = url(keyPrefix, valueOrFile(keyPrefix, URL, url, urlFile, problems), problems);
        String secret = valueOrFile(keyPrefix, SECRET, given(settings.secret()), given(settings.secretFile()),
                problems);
        if (problems.size() > known) {
            return null;
        }
        try {
            return new WebhookReceiver(name, uri, format, secret, minSeverity, kinds, allowHttp);
        } catch (IllegalArgumentException e) {
            // The record's messages start with the setting they are about: "url must start with …".
            problems.add(keyPrefix + e.getMessage());
            return null;
        }
    }

    /** A setting's value, trimmed; empty when it is not set. */
    private static String given(Optional<String> setting) {
        return setting.map(String::strip).orElse("");
    }

    private static URI url(String keyPrefix, String value, List<String> problems) {
        if (value == null) {
            return null;
        }
        if (value.isEmpty()) {
            problems.add(keyPrefix + URL + " is required (or " + keyPrefix + URL_FILE + ")");
            return null;
        }
        try {
            return new URI(value);
        } catch (URISyntaxException e) {
            // The reason and position only: the URL itself may hold a token.
            problems.add(keyPrefix + URL + " is not a URL: " + e.getReason() + " at character " + (e.getIndex() + 1));
            return null;
        }
    }

    /** Whether {@code file} is named and surely not there (an unreadable directory is not "surely"). */
    private static boolean isAbsent(String file) {
        try {
            return !file.isEmpty() && Files.notExists(Path.of(file));
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /**
     * {@code value}, or read from {@code file}, the setting {@code <setting>-file} (trimmed); null
     * after adding a problem. The problem names the file, never its content.
     */
    private static String valueOrFile(String keyPrefix, String setting, String value, String file,
            List<String> problems) {
        if (file.isEmpty()) {
            return value;
        }
        String fileKey = keyPrefix + setting + "-file";
        if (!value.isEmpty()) {
            problems.add(keyPrefix + setting + " and " + fileKey + " are both set; keep one");
            return null;
        }
        try {
            String content = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
            if (content.isEmpty()) {
                problems.add(fileKey + ": " + file + " is empty");
                return null;
            }
            return content;
        } catch (IOException | InvalidPathException e) {
            problems.add(fileKey + ": cannot read " + file + " (" + e.getClass().getSimpleName() + ")");
            return null;
        }
    }

    private static boolean allowHttp(String keyPrefix, String value, List<String> problems) {
        if (value.isEmpty() || value.equalsIgnoreCase("false")) {
            return false;
        }
        if (value.equalsIgnoreCase("true")) {
            return true;
        }
        problems.add(keyPrefix + ALLOW_HTTP + " must be true or false, was '" + value + "'");
        return false;
    }

    private static WebhookReceiver.Format format(String keyPrefix, String value, List<String> problems) {
        if (value.isEmpty()) {
            return WebhookReceiver.Format.JSON;
        }
        for (WebhookReceiver.Format format : WebhookReceiver.Format.values()) {
            if (format.configName().equalsIgnoreCase(value)) {
                return format;
            }
        }
        problems.add(keyPrefix + FORMAT + " must be json or slack, was '" + value + "'");
        return null;
    }

    private static CostAnomaly.Severity minSeverity(String keyPrefix, String value, List<String> problems) {
        if (value.isEmpty()) {
            return null;
        }
        try {
            return CostAnomaly.Severity.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            problems.add(keyPrefix + MIN_SEVERITY + " must be warning or critical, was '" + value + "'");
            return null;
        }
    }

    private static Set<AnomalyKind> kinds(String keyPrefix, String value, List<String> problems) {
        Set<AnomalyKind> kinds = EnumSet.noneOf(AnomalyKind.class);
        for (String item : value.split(",")) {
            String kind = item.strip();
            if (kind.isEmpty()) {
                continue;
            }
            try {
                kinds.add(AnomalyKind.valueOf(kind.toUpperCase(Locale.ROOT).replace('-', '_')));
            } catch (IllegalArgumentException e) {
                problems.add(keyPrefix + KINDS + ": unknown anomaly kind '" + kind + "', expected some of "
                        + Arrays.stream(AnomalyKind.values()).map(WebhookReceivers::configName)
                                .collect(Collectors.joining(", ")));
            }
        }
        return kinds;
    }

    /** {@code spend-rate} for {@link AnomalyKind#SPEND_RATE}: how kinds are written in configuration. */
    static String configName(AnomalyKind kind) {
        return kind.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
