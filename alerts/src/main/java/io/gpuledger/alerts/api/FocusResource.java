package io.gpuledger.alerts.api;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.KafkaSettings;
import io.gpuledger.finance.FocusAccount;
import io.gpuledger.finance.FocusExport;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code GET /api/focus?from=&to=}: the GPU hours of a range as FOCUS 1.2 CSV, what {@code gpu-ledger export focus}
 * writes (docs/finance.md), for finance tools that fetch over HTTP. The rows are gathered from the topics into a
 * temporary file, then streamed and the file deleted.
 */
@Path("/api/focus")
@Tag(name = "finance")
public class FocusResource {

    public static final String CSV = "text/csv";
    /** The longest range one request may ask for: a billing month and a day. */
    static final Duration LONGEST = Duration.ofDays(32);
    private static final Duration READ_TIMEOUT = Duration.ofMinutes(2);

    private final String bootstrapServers;
    private final String currency;

    public FocusResource(KafkaSettings kafka, AlertSettings settings) {
        this.bootstrapServers = kafka.bootstrapServers();
        this.currency = settings.reportingCurrency();
    }

    @GET
    @Produces(CSV)
    @Operation(summary = "FOCUS 1.2 rows of the GPU hours that start in [from, to), as CSV")
    @APIResponse(responseCode = "200", description = "the rows, a header line first")
    @APIResponse(responseCode = "400", description = "from or to missing or unreadable, or a range over 32 days")
    public Response focus(
            @Parameter(description = "UTC instant the range starts at, e.g. 2026-12-01T00:00:00Z")
            @QueryParam("from") String from,
            @Parameter(description = "UTC instant the range ends before") @QueryParam("to") String to,
            @Parameter(description = "only this team's rows") @QueryParam("team") String team,
            @Parameter(description = "only this job's rows") @QueryParam("job") String job) {
        Instant start = instant("from", from);
        Instant end = instant("to", to);
        if (!end.isAfter(start) || Duration.between(start, end).compareTo(LONGEST) > 0) {
            throw Problems.status(Response.Status.BAD_REQUEST,
                    "to must be after from, and the range at most " + LONGEST.toDays() + " days");
        }
        java.nio.file.Path file;
        try {
            file = Files.createTempFile("gpu-ledger-focus-", ".csv");
            new FocusExport(bootstrapServers, start, end, blankless(team), blankless(job), FocusAccount.DEFAULT,
                    currency, READ_TIMEOUT).writeTo(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the FOCUS rows to a temporary file", e);
        }
        StreamingOutput body = out -> {
            try {
                Files.copy(file, out);
            } finally {
                Files.deleteIfExists(file);
            }
        };
        return Response.ok(body, CSV).header("Content-Disposition",
                "attachment; filename=\"gpu-ledger-focus-" + start + "-" + end + ".csv\"").build();
    }

    private static Instant instant(String parameter, String value) {
        if (value == null || value.isBlank()) {
            throw Problems.status(Response.Status.BAD_REQUEST, parameter + " is required, e.g. 2026-12-01T00:00:00Z");
        }
        try {
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw Problems.status(Response.Status.BAD_REQUEST,
                    parameter + " '" + value + "' is no UTC instant such as 2026-12-01T00:00:00Z");
        }
    }

    private static Optional<String> blankless(String value) {
        return Optional.ofNullable(value).filter(text -> !text.isBlank());
    }
}
