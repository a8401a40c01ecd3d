package io.gpuledger.model;

/**
 * A record that breaks the wire contract. The message always names the offending field, so that
 * whoever reads a dead-letter header or a log line knows what to fix at the source.
 */
public class InvalidRecordException extends RuntimeException {

    private final String field;

    public InvalidRecordException(String field, String problem) {
        super(field + ": " + problem);
        this.field = field;
    }

    public InvalidRecordException(String field, String problem, Throwable cause) {
        super(field + ": " + problem, cause);
        this.field = field;
    }

    /** The JSON field that failed, as a dotted path from the record root ({@code $} for the record as a whole). */
    public String field() {
        return field;
    }
}
