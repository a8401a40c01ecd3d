package io.gpuledger.finance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Currency;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeSet;

/**
 * The FinOps Foundation's FOCUS 1.2 rules ({@code focus/model-1.2.json}, see its ORIGIN.md), run as SQL over a
 * table of FOCUS rows in DuckDB. Each static rule reached from the dataset's root is run where it applies: not
 * the dynamic ones (the model gives them no requirement to run), not the MAY ones, and not those whose provider
 * capabilities the caller does not claim. A rule's row condition, and those of the composites above it, select
 * the rows it judges.
 *
 * <p>Where this differs from the foundation's own validator, it is stricter: a rule of allowed values judges
 * every row (the validator passes it when any one row holds an allowed value); a date-time in text needs its
 * {@code Z}; a key-value column must hold a JSON object; a valid decimal is checked, not skipped. Where the
 * model contradicts the 1.2 specification, the specification's requirement is run instead, and the result
 * says so ({@link #CORRECTIONS}).
 */
public final class FocusRules {

    public static final String RESOURCE = "focus/model-1.2.json";
    public static final String ROOT = "CostAndUsage-D-000-M";

    /**
     * The provider capabilities GPU Ledger's own FOCUS rows claim: it bills provisioned instances, with their
     * type, region, tags, usage, list and unit prices, negotiated (charged) prices, pricing categories,
     * commitment discounts (reserved capacity) and a named billing account. It does not know availability zones,
     * capacity reservations, sub-accounts or account types, and prices in the billing currency.
     */
    public static final Set<String> GPU_LEDGER_CAPABILITIES = Set.of(
            "BILLING_BASED_ON_PROVISIONED_RESOURCES_SUPPORTED", "RESOURCE_TYPE_ASSIGNMENT_SUPPORTED",
            "REGION_SUPPORTED", "TAGGING_SUPPORTED", "USAGE_MEASUREMENT_SUPPORTED", "PUBLIC_PRICE_LIST_SUPPORTED",
            "UNIT_PRICING_SUPPORTED",
            "NEGOTIATED_PRICING_SUPPORTED", "MULTIPLE_PRICING_CATEGORIES_SUPPORTED", "COMMITMENT_DISCOUNT_SUPPORTED",
            "ACCOUNT_NAMING_SUPPORTED");

    /**
     * Rules of the model whose requirement or condition contradicts the FOCUS 1.2 specification, each with the
     * specification's own in the model's terms and why ({@code focus/corrections-1.2.json}, this project's).
     */
    public static final String CORRECTIONS = "focus/corrections-1.2.json";

    /** The unit grammar of the specification's UnitFormat attribute. */
    private static final String UNIT_FORMAT;

    static {
        String dataSize = "(?:[KMGTPE]i?[bB]|[bB])";
        String singularTime = "(?:Year|Month|Day|Hour|Minute|Second)";
        String pluralTime = "(?:Years|Months|Days|Hours|Minutes|Seconds)";
        String count = "(?:[A-Za-z][A-Za-z0-9]*(?: [A-Za-z][A-Za-z0-9]*)*)";
        String unit = "(?:" + dataSize + "|" + count + ")";
        UNIT_FORMAT = "(?:" + unit + "|" + unit + "-" + pluralTime + "|" + unit + "/" + singularTime
                + "|[0-9]+ " + unit + "|" + unit + "/[0-9]+ " + pluralTime + ")";
    }

    private static final String DATE_TIME_TEXT = "[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z";
    private static final String NUMERIC_TEXT = "-?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][-+]?[0-9]+)?";

    /**
     * The suffix of a column that holds a typed column's text as the file had it, where the file was text: the
     * format rules judge that, the others the typed value.
     */
    public static final String TEXT_SUFFIX = "__text";

    private final JsonNode rules;
    private final JsonNode corrections;

    private FocusRules(JsonNode model, JsonNode corrections) {
        this.rules = model.path("ModelRules");
        this.corrections = corrections;
    }

    /** The rules shipped with GPU Ledger. */
    public static FocusRules shipped() {
        return new FocusRules(resource(RESOURCE), resource(CORRECTIONS));
    }

    private static JsonNode resource(String name) {
        try (InputStream in = FocusRules.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is not on the class path");
            }
            return new ObjectMapper().readTree(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + name, e);
        }
    }

    /** How a rule came out. */
    public enum Status { PASSED, FAILED, SKIPPED }

    /**
     * @param violations rows (or groups, or a missing column: 1) the rule found wrong; 0 unless failed
     * @param detail     why it failed or was skipped, or which correction of the model was run
     */
    public record Result(String ruleId, Status status, long violations, String detail, String requirement) {
    }

    /** Every rule reached, with how it came out, in the order reached. */
    public record Report(List<Result> results) {

        public List<Result> failed() {
            return results.stream().filter(result -> result.status() == Status.FAILED).toList();
        }

        public long count(Status status) {
            return results.stream().filter(result -> result.status() == status).count();
        }
    }

    /**
     * Runs the rules over {@code table} of {@code connection} for a provider that claims {@code capabilities}.
     * A column the table lacks fails the rules that need it.
     */
    public Report check(Connection connection, String table, Set<String> capabilities) throws SQLException {
        Run run = new Run(connection, table, capabilities, columnsOf(connection, table));
        run.evaluate(ROOT, "TRUE");
        return new Report(new ArrayList<>(run.results.values()));
    }

    /** The columns the model types as decimals. */
    public Set<String> decimalColumns() {
        Set<String> decimals = new TreeSet<>();
        rules.forEach(rule -> {
            JsonNode requirement = rule.path("ValidationCriteria").path("Requirement");
            if ("TypeDecimal".equals(requirement.path("CheckFunction").asText())) {
                decimals.add(requirement.path("ColumnName").asText());
            }
        });
        return decimals;
    }

    private static Set<String> columnsOf(Connection connection, String table) throws SQLException {
        Set<String> columns = new HashSet<>();
        try (Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery("SELECT column_name FROM information_schema.columns"
                        + " WHERE table_name = '" + table.replace("'", "''") + "'")) {
            while (rows.next()) {
                columns.add(rows.getString(1));
            }
        }
        return columns;
    }

    /** A column a rule needs that the table lacks. */
    private static final class MissingColumn extends Exception {
        MissingColumn(String column) {
            super(column, null, false, false);
        }
    }

    /** One run over one table: each rule's result, the worst over the paths that reach it. */
    private final class Run {
        final Connection connection;
        final String table;
        final Set<String> capabilities;
        final Set<String> columns;
        final Map<String, Result> results = new LinkedHashMap<>();

        Run(Connection connection, String table, Set<String> capabilities, Set<String> columns) {
            this.connection = connection;
            this.table = table;
            this.capabilities = capabilities;
            this.columns = columns;
        }

        Status evaluate(String ruleId, String inherited) throws SQLException {
            JsonNode rule = rules.path(ruleId);
            if (rule.isMissingNode()) {
                return record(new Result(ruleId, Status.FAILED, 1, "the model has no rule " + ruleId, ""));
            }
            JsonNode criteria = rule.path("ValidationCriteria");
            String keyword = criteria.path("Keyword").asText();
            if ("Dynamic".equals(rule.path("Type").asText())) {
                return record(new Result(ruleId, Status.SKIPPED, 0, "dynamic: no requirement to run", ""));
            }
            if (keyword.equals("MAY") || keyword.equals("OPTIONAL")) {
                return record(new Result(ruleId, Status.SKIPPED, 0, "optional (" + keyword + ")", ""));
            }
            JsonNode applicability = rule.path("ApplicabilityCriteria");
            if (applicability.size() > 0 && !claimsAll(applicability)) {
                return record(new Result(ruleId, Status.SKIPPED, 0, "not applicable: needs " + applicability, ""));
            }
            String correction = null;
            JsonNode requirement = criteria.path("Requirement");
            JsonNode condition = criteria.path("Condition");
            JsonNode corrected = corrections.path(ruleId);
            if (!corrected.isMissingNode()) {
                requirement = corrected.path("Requirement");
                condition = corrected.path("Condition");
                correction = "run as the specification says: " + corrected.path("Reason").asText();
            }
            String rows;
            try {
                rows = "(" + inherited + ") AND (" + predicate(condition, true) + ")";
            } catch (MissingColumn e) {
                return record(new Result(ruleId, Status.FAILED, 1, "missing column " + e.getMessage(), keyword));
            }
            if (containsRuleReference(requirement)) {
                return record(new Result(ruleId, composite(requirement, rows), 0,
                        correction == null ? "" : correction, criteria.path("MustSatisfy").asText()));
            }
            return record(leaf(ruleId, requirement, rows, correction, criteria.path("MustSatisfy").asText()));
        }

        private Status composite(JsonNode node, String rows) throws SQLException {
            String function = node.path("CheckFunction").asText();
            if (function.equals("CheckModelRule")) {
                return evaluate(node.path("ModelRuleId").asText(), rows);
            }
            boolean or = function.equals("OR");
            Map<String, Result> before = or ? new LinkedHashMap<>(results) : null;
            List<Status> items = new ArrayList<>();
            for (JsonNode item : node.path("Items")) {
                items.add(composite(item, rows));
            }
            if (!or) {
                return items.contains(Status.FAILED) ? Status.FAILED
                        : items.contains(Status.PASSED) ? Status.PASSED : Status.SKIPPED;
            }
            if (!items.contains(Status.PASSED)) {
                return items.contains(Status.FAILED) ? Status.FAILED : Status.SKIPPED;
            }
            // One alternative holds: the others' failures are no failure of the file.
            for (Map.Entry<String, Result> entry : new ArrayList<>(results.entrySet())) {
                Result result = entry.getValue();
                if (result.status() == Status.FAILED && !result.equals(before.get(entry.getKey()))) {
                    results.put(entry.getKey(), new Result(result.ruleId(), Status.SKIPPED, 0,
                            "an alternative holds instead (" + result.detail() + ")", result.requirement()));
                }
            }
            return Status.PASSED;
        }

        private Result leaf(String ruleId, JsonNode requirement, String rows, String correction, String text)
                throws SQLException {
            String detail = correction == null ? "" : correction;
            try {
                String function = requirement.path("CheckFunction").asText();
                long violations;
                if (function.equals("ColumnPresent")) {
                    String name = requirement.path("ColumnName").asText();
                    return columns.contains(name) ? new Result(ruleId, Status.PASSED, 0, detail, text)
                            : new Result(ruleId, Status.FAILED, 1, "missing column " + name, text);
                }
                if (function.equals("CheckDistinctCount")) {
                    String a = column(requirement.path("ColumnAName").asText());
                    String b = column(requirement.path("ColumnBName").asText());
                    violations = count("SELECT count(*) FROM (SELECT " + a + " FROM " + table + " WHERE " + rows
                            + " GROUP BY " + a + " HAVING count(DISTINCT " + b + ") <> "
                            + requirement.path("ExpectedCount").asLong() + ")");
                } else {
                    violations = count("SELECT count(*) FROM " + table + " WHERE (" + rows + ") AND NOT ("
                            + predicate(requirement, false) + ")");
                }
                Status status = violations == 0 ? Status.PASSED : Status.FAILED;
                return new Result(ruleId, status, violations, status == Status.FAILED
                        ? violations + " rows break it" + (detail.isEmpty() ? "" : "; " + detail) : detail, text);
            } catch (MissingColumn e) {
                return new Result(ruleId, Status.FAILED, 1, "missing column " + e.getMessage(), text);
            }
        }

        private long count(String sql) throws SQLException {
            try (Statement statement = connection.createStatement(); ResultSet result = statement.executeQuery(sql)) {
                result.next();
                return result.getLong(1);
            }
        }

        /** Keeps the worse of two results for a rule reached twice: failed over passed over skipped. */
        private Status record(Result result) {
            Result before = results.get(result.ruleId());
            if (before == null || severity(result.status()) > severity(before.status())) {
                results.put(result.ruleId(), result);
            }
            return result.status();
        }

        private static int severity(Status status) {
            return switch (status) {
                case FAILED -> 2;
                case PASSED -> 1;
                case SKIPPED -> 0;
            };
        }

        /**
         * Whether the provider has every capability a rule names: its sentence asks for all of them ("when the
         * provider supports prices in virtual currency and publishes unit prices"). The foundation's validator runs
         * a rule when any one is claimed.
         */
        private boolean claimsAll(JsonNode applicability) {
            for (JsonNode capability : applicability) {
                if (!capabilities.contains(capability.asText())) {
                    return false;
                }
            }
            return true;
        }

        /**
         * The SQL truth of a check: as a requirement, whether a row meets it (a null meets a value check, as
         * nullability has rules of its own); as a condition, whether the row is one the rule judges. A condition
         * the model leaves empty, or without a check function, selects every row.
         */
        private String predicate(JsonNode check, boolean asCondition) throws MissingColumn {
            if (check == null || check.isMissingNode() || check.isEmpty() || !check.has("CheckFunction")) {
                return "TRUE";
            }
            String function = check.path("CheckFunction").asText();
            if (function.equals("AND") || function.equals("OR")) {
                StringJoiner joined = new StringJoiner(" " + function + " ", "(", ")");
                for (JsonNode item : check.path("Items")) {
                    joined.add(predicate(item, asCondition));
                }
                return joined.length() > 2 ? joined.toString() : "TRUE";
            }
            if (function.equals("ColumnPresent")) {
                return columns.contains(check.path("ColumnName").asText()) ? "TRUE" : "FALSE";
            }
            if (asCondition && !check.has("ColumnName") && !check.has("ColumnAName")) {
                return "TRUE";
            }
            String name = check.path("ColumnName").asText();
            String column = check.has("ColumnName") ? column(name) : null;
            String text = column == null ? null : columns.contains(name + TEXT_SUFFIX)
                    ? FocusFile.quoted(name + TEXT_SUFFIX) : "CAST(" + column + " AS VARCHAR)";
            JsonNode value = check.path("Value");
            return switch (function) {
                case "CheckValue" -> value.isNull() ? column + " IS NULL"
                        : asCondition ? "COALESCE(" + column + " = " + literal(value) + ", FALSE)"
                        : "(" + column + " IS NULL OR " + column + " = " + literal(value) + ")";
                case "CheckNotValue" -> value.isNull() ? column + " IS NOT NULL"
                        : "(" + column + " IS NULL OR " + column + " <> " + literal(value) + ")";
                case "CheckSameValue", "CheckNotSameValue" -> {
                    String a = column(check.path("ColumnAName").asText());
                    String b = column(check.path("ColumnBName").asText());
                    String op = function.equals("CheckSameValue") ? " = " : " <> ";
                    yield asCondition ? "COALESCE(" + a + op + b + ", FALSE)"
                            : "(" + a + " IS NULL OR " + b + " IS NULL OR " + a + op + b + ")";
                }
                case "CheckGreaterOrEqualThanValue" -> "(" + column + " IS NULL OR " + column + " >= "
                        + literal(value) + ")";
                case "ColumnByColumnEqualsColumnValue" -> {
                    String a = column(check.path("ColumnAName").asText());
                    String b = column(check.path("ColumnBName").asText());
                    String result = column(check.path("ResultColumnName").asText());
                    yield "(" + a + " IS NULL OR " + b + " IS NULL OR " + result + " IS NULL OR " + a + " * " + b
                            + " = " + result + ")";
                }
                case "TypeString" -> "(" + column + " IS NULL OR typeof(" + column + ") = 'VARCHAR')";
                case "TypeDecimal" -> "(" + column + " IS NULL OR typeof(" + column + ") LIKE 'DECIMAL%' OR typeof("
                        + column + ") IN ('DOUBLE', 'FLOAT'))";
                case "TypeDateTime", "FormatDateTime" -> "(" + column + " IS NULL OR typeof(" + column
                        + ") LIKE 'TIMESTAMP%' OR typeof(" + column + ") = 'DATE' OR (regexp_full_match(" + text
                        + ", '" + DATE_TIME_TEXT + "') AND TRY_CAST(replace(" + text
                        + ", 'Z', '') AS TIMESTAMP) IS NOT NULL))";
                case "FormatNumeric" -> "(" + text + " IS NULL OR regexp_full_match(trim(" + text + "), '"
                        + NUMERIC_TEXT + "'))";
                case "FormatString" -> "(" + column + " IS NULL OR NOT regexp_matches(" + text
                        + ", '[^\\x{01}-\\x{7F}]'))";
                case "FormatCurrency" -> "(" + column + " IS NULL OR regexp_full_match(trim(" + text
                        + "), '[A-Z]{3}'))";
                case "CheckNationalCurrency", "FormatBillingCurrencyCode" -> "(" + column + " IS NULL OR trim("
                        + text + ") IN (" + nationalCurrencies() + "))";
                case "FormatKeyValue" -> "(" + column + " IS NULL OR (json_valid(" + text + ") AND json_type("
                        + text + ") = 'OBJECT'))";
                case "FormatUnit" -> "(" + column + " IS NULL OR regexp_full_match(" + text + ", '" + UNIT_FORMAT
                        + "'))";
                case "CheckDecimalValue" -> "(" + text + " IS NULL OR TRY_CAST(" + text + " AS " + FocusFile.DECIMAL
                        + ") IS NOT NULL)";
                default -> throw new IllegalStateException("the FOCUS model uses a check this runner does not know: "
                        + function);
            };
        }

        private String column(String name) throws MissingColumn {
            if (!columns.contains(name)) {
                throw new MissingColumn(name);
            }
            return FocusFile.quoted(name);
        }
    }

    private static boolean containsRuleReference(JsonNode node) {
        if ("CheckModelRule".equals(node.path("CheckFunction").asText())) {
            return true;
        }
        for (JsonNode item : node.path("Items")) {
            if (containsRuleReference(item)) {
                return true;
            }
        }
        return false;
    }

    private static String literal(JsonNode value) {
        if (value.isNumber()) {
            return value.asText();
        }
        return "'" + value.asText().replace("'", "''") + "'";
    }

    private static String nationalCurrencies() {
        Set<String> codes = new TreeSet<>();
        for (Currency currency : Currency.getAvailableCurrencies()) {
            codes.add(currency.getCurrencyCode().toUpperCase(Locale.ROOT));
        }
        StringJoiner list = new StringJoiner(", ");
        codes.forEach(code -> list.add("'" + code + "'"));
        return list.toString();
    }
}
