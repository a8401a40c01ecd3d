package io.gpuledger.alerts.anomaly;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BudgetsTest {

    @Test
    void shouldReadEveryBudgetOfTheLine() {
        assertThat(Budgets.parse(" team:research=5000 USD; job:train-llm = 300.5 EUR ;"))
                .containsExactly(new BudgetBurn.Budget("team", "research", 5000, "USD"),
                        new BudgetBurn.Budget("job", "train-llm", 300.5, "EUR"));
        assertThat(Budgets.parse("")).isEmpty();
        assertThat(Budgets.parse(null)).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " -> ", value = {
            "research=5000 USD -> expected <team|job|pool>",
            "squad:research=5000 USD -> unknown dimension",
            "team:research=lots USD -> is not an amount",
            "team:research=5000 -> expected <team|job|pool>",
            "team:research=5000 dollars -> currency",
            "team:research=-5 USD -> amount"})
    void shouldNameWhatIsWrongWithABudget(String line, String problem) {
        assertThatThrownBy(() -> Budgets.parse(line)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(problem);
    }
}
