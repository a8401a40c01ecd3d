package io.gpuledger.ingest.price;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.model.InvalidRecordException;
import org.junit.jupiter.api.Test;

class ReservedTermTest {

    @Test
    void shouldReadTheWaysProvidersWriteATerm() {
        // Given the spellings of catalogs (1y, 36m) and of Azure's reservationTerm ("3 Years")
        // When they are read, Then they name the same lengths
        assertThat(ReservedTerm.parse("term", "1y")).isEqualTo(ReservedTerm.ONE_YEAR);
        assertThat(ReservedTerm.parse("term", "1 Year")).isEqualTo(ReservedTerm.ONE_YEAR);
        assertThat(ReservedTerm.parse("term", "12 months")).isEqualTo(ReservedTerm.ONE_YEAR);
        assertThat(ReservedTerm.parse("term", "3 Years")).isEqualTo(ReservedTerm.THREE_YEARS);
        assertThat(ReservedTerm.parse("term", "36m")).isEqualTo(ReservedTerm.THREE_YEARS);
    }

    @Test
    void shouldCountYearsOf8760HoursAndOtherMonthsOf730() {
        assertThat(ReservedTerm.ONE_YEAR.hours()).isEqualTo(8760);
        assertThat(ReservedTerm.THREE_YEARS.hours()).isEqualTo(26280);
        assertThat(ReservedTerm.parse("term", "6 months").hours()).isEqualTo(4380);
    }

    @Test
    void shouldAmortiseUpfrontFeeOverTheTerm() {
        // Given a one-year reservation paid 4380 up front and 0.25 every hour
        // When its effective hourly rate is taken
        double hourly = ReservedTerm.ONE_YEAR.effectiveHourly(0.25, 4380);

        // Then the upfront fee is spread over the 8760 hours of the year
        assertThat(hourly).isEqualTo(0.75);
    }

    @Test
    void shouldNameTheFieldOfATermItCannotRead() {
        assertThatThrownBy(() -> ReservedTerm.parse("reservationTerm", "5 Decades"))
                .isInstanceOf(InvalidRecordException.class)
                .hasMessage("reservationTerm: is not a reservation term such as 1y, 3y, '1 Year' or '36 months': '5 "
                        + "Decades'");
        assertThatThrownBy(() -> ReservedTerm.parse("term", "0y"))
                .hasMessage("term: must be between one month and ten years, was '0y'");
    }
}
