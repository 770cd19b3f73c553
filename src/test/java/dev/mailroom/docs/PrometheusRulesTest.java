package dev.mailroom.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mailroom.alert.AlertDispatcher;
import dev.mailroom.docs.PrometheusRules.Rule;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The alerting rules parse; each is named after an alert Mailroom raises, with a severity and a runbook link to that
 * alert's section; every alert Mailroom raises about its work has a rule; and every metric a rule queries is one the
 * code registers (RemoteBrokerIT checks them on a live node).
 */
class PrometheusRulesTest {

    @Test
    void everyRuleIsAMailroomAlertWithASeverityAndItsRunbookSection() {
        List<Rule> rules = PrometheusRules.read();
        Set<String> anchors = DocLinks.anchors(CodeNames.read(Path.of("docs/runbook.md")));
        for (Rule r : rules) {
            assertThat(CodeNames.alertNames()).as("rule " + r.alert() + " is an alert Mailroom raises").contains(r.alert());
            assertThat(r.labels().path("severity").asText()).as(r.alert() + "'s severity").isIn("page", "ticket");
            String anchor = r.alert().toLowerCase(Locale.ROOT);
            assertThat(r.annotations().path("runbook_url").asText()).as(r.alert() + "'s runbook link")
                    .isEqualTo("docs/runbook.md#" + anchor);
            assertThat(anchors).as("the runbook section " + anchor).contains(anchor);
            assertThat(r.annotations().path("summary").asText()).as(r.alert() + "'s summary").isNotBlank();
        }
        Set<String> ruled = rules.stream().map(Rule::alert).collect(Collectors.toCollection(TreeSet::new));
        Set<String> raised = new TreeSet<>(CodeNames.alertNames());
        // about the in-app alert queue itself: nothing for Prometheus to see
        raised.remove(AlertDispatcher.EVENTS_DROPPED);
        assertThat(ruled).isEqualTo(raised);
    }

    @Test
    void everyMetricARuleQueriesIsOneMailroomRegisters() {
        Set<String> registered = CodeNames.metrics().keySet();
        for (Rule r : PrometheusRules.read()) {
            Set<String> queried = PrometheusRules.metrics(r.expr());
            assertThat(queried).as(r.alert() + " queries a metric").isNotEmpty();
            assertThat(registered).as(r.alert() + ": " + r.expr()).containsAll(queried);
        }
    }

    @Test
    void theExpressionReaderFindsMetricsAndRefusesWhatDoesNotParse() {
        assertThat(PrometheusRules.metrics(
                "sum by (queue, reason) (increase(mailroom_deadletter_arrivals_total{reason=~\"a|b\"}[5m])) > 0"))
                .containsExactly("mailroom_deadletter_arrivals_total");
        assertThat(PrometheusRules.metrics("max by (queue) (mailroom_a and mailroom_b > 0) > 86400"))
                .containsExactly("mailroom_a", "mailroom_b");
        assertThatThrownBy(() -> PrometheusRules.metrics("sum(mailroom_a")).hasMessageContaining("does not close");
        assertThatThrownBy(() -> PrometheusRules.metrics("mailroom_a{queue=\"x}")).hasMessageContaining("quote");
        assertThatThrownBy(() -> PrometheusRules.metrics("increse(mailroom_a[5m])")).hasMessageContaining("not a PromQL function");
    }
}
