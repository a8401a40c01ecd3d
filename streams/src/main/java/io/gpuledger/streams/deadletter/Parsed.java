package io.gpuledger.streams.deadletter;

import io.gpuledger.model.InvalidRecordException;

/** A record read off an input topic: either a valid contract record, or the raw bytes and why they were refused. */
public record Parsed<T>(T value, byte[] raw, InvalidRecordException error) {

    public static <T> Parsed<T> valid(T value, byte[] raw) {
        return new Parsed<>(value, raw, null);
    }

    public static <T> Parsed<T> invalid(byte[] raw, InvalidRecordException error) {
        return new Parsed<>(null, raw, error);
    }

    public boolean isValid() {
        return error == null;
    }
}
