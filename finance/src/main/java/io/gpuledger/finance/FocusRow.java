package io.gpuledger.finance;

import java.math.BigDecimal;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;

/**
 * One FOCUS row: a value per column, null where the column is null. Values are {@link String}s (text and JSON),
 * {@link BigDecimal}s (decimals, exact as written) and {@link Instant}s (date-times).
 */
public final class FocusRow {

    private final EnumMap<FocusColumn, Object> values = new EnumMap<>(FocusColumn.class);

    FocusRow set(FocusColumn column, Object value) {
        if (value == null) {
            values.remove(column);
            return this;
        }
        boolean fits = switch (column.kind()) {
            case STRING, JSON -> value instanceof String;
            case DECIMAL -> value instanceof BigDecimal;
            case DATE_TIME -> value instanceof Instant;
        };
        if (!fits) {
            throw new IllegalArgumentException(column.focusName() + " takes no " + value.getClass().getSimpleName());
        }
        values.put(column, value);
        return this;
    }

    public Object get(FocusColumn column) {
        return values.get(column);
    }

    public String text(FocusColumn column) {
        return (String) values.get(column);
    }

    public BigDecimal decimal(FocusColumn column) {
        return (BigDecimal) values.get(column);
    }

    public Instant instant(FocusColumn column) {
        return (Instant) values.get(column);
    }

    /** A copy of this row, for a row that differs from it in a few columns. */
    FocusRow copy() {
        FocusRow copy = new FocusRow();
        for (Map.Entry<FocusColumn, Object> entry : values.entrySet()) {
            copy.values.put(entry.getKey(), entry.getValue());
        }
        return copy;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
