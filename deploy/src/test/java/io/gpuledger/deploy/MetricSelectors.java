package io.gpuledger.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The series selectors of a PromQL expression: which metrics it reads and with which label
 * matchers. Enough of PromQL to check a dashboard against the metric catalogue, not a parser of the
 * language: strings, ranges and Grafana variables are skipped, and a name is a metric unless it is
 * a function (followed by a parenthesis), an aggregation operator or a keyword.
 */
final class MetricSelectors {

    /** One label matcher, {@code label op "value"}. */
    record Matcher(String label, String op, String value) {
    }

    /** A metric name and its matchers; {@code metric} is null for a selector without a name ({@code {job="x"}}). */
    record Selector(String metric, List<Matcher> matchers) {
    }

    private static final Set<String> AGGREGATIONS = Set.of("sum", "min", "max", "avg", "group", "stddev", "stdvar",
            "count", "count_values", "bottomk", "topk", "quantile", "limitk", "limit_ratio");

    /** Keywords that are followed by a list of label names in parentheses. */
    private static final Set<String> LABEL_LISTS = Set.of("by", "without", "on", "ignoring", "group_left",
            "group_right");

    private static final Set<String> KEYWORDS = Set.of("bool", "and", "or", "unless", "offset", "atan2", "inf",
            "nan");

    private final String text;
    private int at;

    private MetricSelectors(String text) {
        this.text = text;
    }

    /** Every selector of {@code expr}, in order of appearance. */
    static List<Selector> of(String expr) {
        return new MetricSelectors(expr).selectors();
    }

    /** The metric names {@code expr} reads, in order of appearance, repeated as often as they appear. */
    static List<String> metricNames(String expr) {
        return of(expr).stream().map(Selector::metric).filter(name -> name != null).toList();
    }

    private List<Selector> selectors() {
        List<Selector> found = new ArrayList<>();
        while (at < text.length()) {
            char c = text.charAt(at);
            if (c == '"' || c == '\'' || c == '`') {
                string();
            } else if (c == '#') {
                skipLine();
            } else if (c == '[') {
                skipPast(']');
            } else if (c == '$') {
                grafanaVariable();
            } else if (c == '{') {
                found.add(new Selector(null, matchers()));
            } else if (Character.isDigit(c) || c == '.' && at + 1 < text.length()
                    && Character.isDigit(text.charAt(at + 1))) {
                number();
            } else if (isNameStart(c)) {
                String name = name();
                skipSpace();
                boolean call = at < text.length() && text.charAt(at) == '(';
                if (LABEL_LISTS.contains(name)) {
                    if (call) {
                        skipPast(')');
                    }
                } else if (!call && !AGGREGATIONS.contains(name) && !KEYWORDS.contains(name)) {
                    boolean braces = at < text.length() && text.charAt(at) == '{';
                    found.add(new Selector(name, braces ? matchers() : List.of()));
                }
            } else {
                at++;
            }
        }
        return found;
    }

    private List<Matcher> matchers() {
        List<Matcher> matchers = new ArrayList<>();
        at++; // {
        while (true) {
            skipSpace();
            if (at >= text.length()) {
                throw new IllegalArgumentException("unclosed '{' in: " + text);
            }
            char c = text.charAt(at);
            if (c == '}') {
                at++;
                return matchers;
            }
            if (c == ',') {
                at++;
                continue;
            }
            if (!isNameStart(c)) {
                throw new IllegalArgumentException("expected a label name at " + at + " in: " + text);
            }
            String label = name();
            skipSpace();
            String op = operator();
            skipSpace();
            matchers.add(new Matcher(label, op, string()));
        }
    }

    private String operator() {
        for (String op : List.of("=~", "!~", "!=", "=")) {
            if (text.startsWith(op, at)) {
                at += op.length();
                return op;
            }
        }
        throw new IllegalArgumentException("expected a matcher operator at " + at + " in: " + text);
    }

    /** A quoted string from its opening quote; returns its content with escapes resolved. */
    private String string() {
        char quote = text.charAt(at);
        if (quote != '"' && quote != '\'' && quote != '`') {
            throw new IllegalArgumentException("expected a quoted string at " + at + " in: " + text);
        }
        StringBuilder value = new StringBuilder();
        at++;
        while (at < text.length()) {
            char c = text.charAt(at++);
            if (c == quote) {
                return value.toString();
            }
            if (c == '\\' && quote != '`' && at < text.length()) {
                c = text.charAt(at++);
            }
            value.append(c);
        }
        throw new IllegalArgumentException("unclosed string in: " + text);
    }

    /** {@code $name} or {@code ${name}}, as Grafana writes its variables. */
    private void grafanaVariable() {
        at++;
        if (at < text.length() && text.charAt(at) == '{') {
            skipPast('}');
        } else {
            while (at < text.length() && isNamePart(text.charAt(at))) {
                at++;
            }
        }
    }

    /** A number or a duration ({@code 0.05}, {@code 1e-9}, {@code 5m}, {@code 1h30m}). */
    private void number() {
        while (at < text.length() && (Character.isLetterOrDigit(text.charAt(at)) || text.charAt(at) == '.')) {
            at++;
        }
    }

    private String name() {
        int start = at;
        while (at < text.length() && isNamePart(text.charAt(at))) {
            at++;
        }
        return text.substring(start, at);
    }

    private void skipPast(char end) {
        int close = text.indexOf(end, at);
        if (close < 0) {
            throw new IllegalArgumentException("missing '" + end + "' in: " + text);
        }
        at = close + 1;
    }

    private void skipLine() {
        int newline = text.indexOf('\n', at);
        at = newline < 0 ? text.length() : newline + 1;
    }

    private void skipSpace() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) {
            at++;
        }
    }

    private static boolean isNameStart(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':';
    }

    private static boolean isNamePart(char c) {
        return isNameStart(c) || c >= '0' && c <= '9';
    }
}
