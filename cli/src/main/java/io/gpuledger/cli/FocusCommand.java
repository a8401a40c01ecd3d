package io.gpuledger.cli;

import io.gpuledger.finance.FocusAccount;
import io.gpuledger.finance.FocusExport;
import io.gpuledger.finance.FocusFile;
import io.gpuledger.finance.FocusRules;
import io.gpuledger.finance.FocusValidation;
import io.gpuledger.model.Check;
import io.gpuledger.model.InvalidRecordException;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * {@code gpu-ledger export focus} (the engine's GPU hours of a range as a FOCUS 1.2 file) and
 * {@code gpu-ledger validate focus FILE} (a FOCUS file judged by the FinOps Foundation's 1.2 rules).
 */
final class FocusCommand {

    static final String EXPORT_USAGE = "export focus --from TIME --to TIME --out FILE.csv|.csv.gz|.parquet"
            + " [--team TEAM] [--job JOB] [--billing-account ID] [--billing-account-name NAME] [--currency USD]"
            + " [--timeout SECONDS] [--read-to-end]";
    static final String VALIDATE_USAGE = "validate focus FILE [--capabilities NAME,NAME...]";
    private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(120);

    private FocusCommand() {
    }

    static int export(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        if (args.length == 0 || !args[0].equals("focus")) {
            throw new UsageException("usage: gpu-ledger " + EXPORT_USAGE);
        }
        List<String> rest = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
        boolean readToEnd = rest.remove("--read-to-end");
        Map<String, String> options = pairs(rest.toArray(String[]::new), Set.of("--from",
                "--to", "--out", "--team", "--job", "--billing-account", "--billing-account-name", "--currency",
                "--timeout"));
        String bootstrap = bootstrap(env, "export focus");
        Instant from = time("--from", required(options, "--from"));
        Instant to = time("--to", required(options, "--to"));
        if (!to.isAfter(from)) {
            throw new UsageException("--to must be after --from");
        }
        Path file = Path.of(required(options, "--out"));
        try {
            FocusFile.Format.of(file);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--out: " + e.getMessage());
        }
        FocusAccount account;
        try {
            account = new FocusAccount(options.getOrDefault("--billing-account", FocusAccount.DEFAULT.id()),
                    options.getOrDefault("--billing-account-name", FocusAccount.DEFAULT.name()));
        } catch (InvalidRecordException e) {
            throw new UsageException(e.getMessage());
        }
        String currency = options.getOrDefault("--currency", "USD");
        try {
            Check.currency("--currency", currency);
        } catch (InvalidRecordException e) {
            throw new UsageException(e.getMessage());
        }
        Duration timeout = options.containsKey("--timeout")
                ? Duration.ofSeconds(UsageException.positive("--timeout", options.get("--timeout"))) : DEFAULT_TIMEOUT;
        FocusExport export = new FocusExport(bootstrap, from, to, Optional.ofNullable(options.get("--team")),
                Optional.ofNullable(options.get("--job")), account, currency, timeout, readToEnd);
        try {
            FocusExport.Summary summary = export.writeTo(file);
            out.printf("wrote %d rows to %s: %d GPU-hours, %d correction rows, %d hours sent again unchanged"
                    + " (left out), %d records that were no hour or price (left out)%n", summary.rows(), file,
                    summary.hours(), summary.corrections(), summary.repeats(), summary.unreadable());
            return 0;
        } catch (RuntimeException e) {
            err.println("gpu-ledger export focus: " + e.getMessage());
            return 1;
        }
    }

    static int validate(String[] args, PrintStream out, PrintStream err) {
        if (args.length < 2 || !args[0].equals("focus")) {
            throw new UsageException("usage: gpu-ledger " + VALIDATE_USAGE);
        }
        Path file = Path.of(args[1]);
        Map<String, String> options = pairs(Arrays.copyOfRange(args, 2, args.length),
                Set.of("--capabilities"));
        Set<String> capabilities = options.containsKey("--capabilities")
                ? new TreeSet<>(Arrays.asList(options.get("--capabilities").split(",")))
                : FocusRules.GPU_LEDGER_CAPABILITIES;
        FocusRules.Report report;
        try {
            report = FocusValidation.of(file, capabilities);
        } catch (IllegalArgumentException e) {
            err.println("gpu-ledger validate focus: " + e.getMessage());
            return 1;
        }
        for (FocusRules.Result failed : report.failed()) {
            out.printf("FAILED %s: %s (%s)%n", failed.ruleId(), failed.detail(), failed.requirement());
        }
        out.printf("%s: %d rules passed, %d failed, %d skipped (dynamic, optional, or for capabilities not"
                + " claimed)%n", file, report.count(FocusRules.Status.PASSED), report.count(FocusRules.Status.FAILED),
                report.count(FocusRules.Status.SKIPPED));
        return report.failed().isEmpty() ? 0 : 1;
    }

    /** {@code --option value} pairs, each option one of {@code known} and given once. */
    private static Map<String, String> pairs(String[] args, Set<String> known) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            String option = args[i];
            if (!known.contains(option)) {
                throw new UsageException("unknown option '" + option + "'");
            }
            if (i + 1 >= args.length) {
                throw new UsageException(option + " needs a value");
            }
            if (options.put(option, args[i + 1]) != null) {
                throw new UsageException(option + " given twice");
            }
        }
        return options;
    }

    private static String required(Map<String, String> options, String option) {
        String value = options.get(option);
        if (value == null) {
            throw new UsageException("export focus needs " + option);
        }
        return value;
    }

    /** The cluster in {@code KAFKA_BOOTSTRAP_SERVERS}, or a usage error of {@code command}. */
    static String bootstrap(Map<String, String> env, String command) {
        return Optional.ofNullable(env.get("KAFKA_BOOTSTRAP_SERVERS")).map(String::trim)
                .filter(servers -> !servers.isEmpty()).orElseThrow(() -> new UsageException(command
                        + ": KAFKA_BOOTSTRAP_SERVERS is not set; set it to the Kafka cluster the engine writes to"));
    }

    /** An instant ({@code 2026-12-01T00:00:00Z}) or a UTC date ({@code 2026-12-01}: its midnight). */
    static Instant time(String option, String value) {
        try {
            if (value.length() == 10) {
                return LocalDate.parse(value).atStartOfDay(ZoneOffset.UTC).toInstant();
            }
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new UsageException(option + " " + value + ": expected a UTC date (2026-12-01) or instant"
                    + " (2026-12-01T13:00:00Z)");
        }
    }
}
