package io.gpuledger.alerts.webhook;

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
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Reads webhook receivers from flat configuration, one group of keys per receiver:
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
 * The keys given to {@link #parse} have the common prefix ({@code gpuledger.webhooks.}) removed.
 * The URL and the secret can each come from a file instead ({@code url-file}, {@code secret-file}):
 * a Secret mounted as a volume, so that neither is in the environment. Setting both forms of one
 * is an error, so that neither wins unnoticed.
 */
public final class WebhookReceivers {

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

    private static final List<String> SETTINGS = List.of(URL, URL_FILE, FORMAT, SECRET, SECRET_FILE, MIN_SEVERITY,
            KINDS,
            ALLOW_HTTP);

    private WebhookReceivers() {
    }

    /** {@link #parse(String, Map, Consumer)}, for configurations that name no {@code url-file}. */
    static List<WebhookReceiver> parse(String prefix, Map<String, String> properties) {
        return parse(prefix, properties, leftOut -> {
        });
    }

    /**
     * The receivers configured in {@code properties}, sorted by name.
     *
     * @param prefix     the prefix that was stripped from the keys; used only to name keys in error messages
     * @param properties {@code <name>.<setting>} to value
     * @param leftOut    told of each receiver left out because its {@code url-file} does not exist
     * @throws IllegalArgumentException naming every key that is unknown, missing or malformed, or a
     *                                  file that exists but cannot be read or is empty
     */
    public static List<WebhookReceiver> parse(String prefix, Map<String, String> properties,
            Consumer<String> leftOut) {
        List<String> problems = new ArrayList<>();
        Map<String, Map<String, String>> settingsByName = new TreeMap<>();
        for (Map.Entry<String, String> entry : new TreeMap<>(properties).entrySet()) {
            String key = entry.getKey();
            int dot = key.indexOf('.');
            String setting = dot < 0 ? "" : key.substring(dot + 1);
            if (dot <= 0 || !SETTINGS.contains(setting)) {
                problems.add(prefix + key + ": not a webhook setting; expected <name>.<setting> with a setting of "
                        + SETTINGS);
                continue;
            }
            String value = entry.getValue() == null ? "" : entry.getValue().strip();
            settingsByName.computeIfAbsent(key.substring(0, dot), name -> new HashMap<>()).put(setting, value);
        }
        List<WebhookReceiver> receivers = new ArrayList<>();
        settingsByName.forEach((name, settings) -> {
            WebhookReceiver receiver = receiver(prefix + name + ".", name, settings, problems, leftOut);
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
    private static WebhookReceiver receiver(String keyPrefix, String name, Map<String, String> settings,
            List<String> problems, Consumer<String> leftOut) {
        int known = problems.size();
        if (!WebhookReceiver.isValidName(name)) {
            problems.add(keyPrefix + "*: the receiver name '" + name
                    + "' must be 1 to 64 letters, digits, '-' or '_', starting with a letter or digit");
            return null;
        }
        WebhookReceiver.Format format = format(keyPrefix, settings.getOrDefault(FORMAT, ""), problems);
        CostAnomaly.Severity minSeverity = minSeverity(keyPrefix, settings.getOrDefault(MIN_SEVERITY, ""), problems);
        Set<AnomalyKind> kinds = kinds(keyPrefix, settings.getOrDefault(KINDS, ""), problems);
        boolean allowHttp = allowHttp(keyPrefix, settings.getOrDefault(ALLOW_HTTP, ""), problems);
        String urlFile = settings.getOrDefault(URL_FILE, "");
        if (problems.size() == known && settings.getOrDefault(URL, "").isEmpty() && isAbsent(urlFile)) {
            leftOut.accept("no webhook receiver " + name + ": " + keyPrefix + URL_FILE + " names " + urlFile
                    + ", which does not exist");
            return null;
        }
        URI url = url(keyPrefix, valueOrFile(keyPrefix, URL, settings, problems), problems);
        String secret = valueOrFile(keyPrefix, SECRET, settings, problems);
        if (problems.size() > known) {
            return null;
        }
        try {
            return new WebhookReceiver(name, url, format, secret, minSeverity, kinds, allowHttp);
        } catch (IllegalArgumentException e) {
            // The record's messages start with the setting they are about: "url must start with …".
            problems.add(keyPrefix + e.getMessage());
            return null;
        }
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
     * {@code setting} as given, or read from the file {@code <setting>-file} names (trimmed); null
     * after adding a problem. The problem names the file, never its content.
     */
    private static String valueOrFile(String keyPrefix, String setting, Map<String, String> settings,
            List<String> problems) {
        String value = settings.getOrDefault(setting, "");
        String file = settings.getOrDefault(setting + "-file", "");
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
