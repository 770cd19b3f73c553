package dev.mailroom.platform;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.persistence.OptimisticLockException;
import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DatabaseFailuresDeadlockTest {

    @ParameterizedTest
    @CsvSource({
            "40001, true",   // H2 "Deadlock detected", the standard serialization failure
            "40P01, true",   // PostgreSQL deadlock_detected
            "23505, false",  // a unique constraint: running again changes nothing
            "08006, false",  // a lost connection: the stop-the-line rule's business, not a retry
    })
    void aDeadlockVictimIsRecognisedThroughItsWrappers(String sqlState, boolean victim) {
        SQLException sql = new SQLException("x", sqlState);
        RuntimeException wrapped = new OptimisticLockException(new RuntimeException("hibernate", sql));
        assertThat(DatabaseFailures.isDeadlockVictim(wrapped)).isEqualTo(victim);
        assertThat(DatabaseFailures.isDeadlockVictim(new IllegalStateException("no SQL at all"))).isFalse();
    }

    private static RuntimeException failure(String sqlState) {
        return new OptimisticLockException(new RuntimeException("hibernate", new SQLException("x", sqlState)));
    }

    @Test
    void aVictimRunsAgainUntilItCommits() {
        AtomicInteger runs = new AtomicInteger();
        DatabaseFailures.rerunDeadlockVictims(3, () -> {
            if (runs.incrementAndGet() < 3) {
                throw failure("40001");
            }
        });
        assertThat(runs).hasValue(3);
    }

    @Test
    void theLastVictimIsThrownAfterTheAttempts() {
        AtomicInteger runs = new AtomicInteger();
        RuntimeException victim = failure("40P01");
        assertThatThrownBy(() -> DatabaseFailures.rerunDeadlockVictims(3, () -> {
            runs.incrementAndGet();
            throw victim;
        })).isSameAs(victim);
        assertThat(runs).hasValue(3);
    }

    @Test
    void anythingElseIsThrownAtOnce() {
        AtomicInteger runs = new AtomicInteger();
        RuntimeException constraint = failure("23505");
        assertThatThrownBy(() -> DatabaseFailures.rerunDeadlockVictims(3, () -> {
            runs.incrementAndGet();
            throw constraint;
        })).isSameAs(constraint);
        assertThat(runs).hasValue(1);
    }

    @Test
    void aTransactionThatFailedOnTheConnectionRunsAgainWhenTheCallerSaysSoAndNothingElseDoes() {
        AtomicInteger runs = new AtomicInteger();
        RuntimeException cut = failure("08006");
        DatabaseFailures.rerun(4, java.time.Duration.ofMillis(1), DatabaseFailures::isConnectionFailure, () -> {
            if (runs.incrementAndGet() < 3) {
                throw cut;
            }
        });
        assertThat(runs).hasValue(3);

        AtomicInteger once = new AtomicInteger();
        assertThatThrownBy(() -> DatabaseFailures.rerun(4, java.time.Duration.ofMillis(1), DatabaseFailures::isDeadlockVictim,
                () -> {
                    once.incrementAndGet();
                    throw cut;
                })).isSameAs(cut);
        assertThat(once).hasValue(1);
    }
}
