package dev.mailroom.send;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/**
 * Open Liberty keeps which queue each send MDB consumes in its activation specs (server-config/liberty/server.xml),
 * the deployment in {@link SendMdbs}, which the consumer switch asks: the two must agree, and every queue the send
 * path looks up must be bound.
 */
class LibertyActivationSpecsTest {

    static final Path SERVER_XML = Path.of("server-config/liberty/server.xml");

    @Test
    void eachSendMdbHasAnActivationSpecForItsQueueAndEveryQueueIsBound() throws Exception {
        Document doc = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(SERVER_XML.toFile());
        Map<String, String> destinationBySpec = new HashMap<>();
        NodeList specs = doc.getElementsByTagName("jmsActivationSpec");
        for (int i = 0; i < specs.getLength(); i++) {
            Element spec = (Element) specs.item(i);
            Element props = (Element) spec.getElementsByTagName("properties.artemis").item(0);
            destinationBySpec.put(spec.getAttribute("id"), props.getAttribute("destination"));
        }
        Set<String> bound = new TreeSet<>();
        NodeList queues = doc.getElementsByTagName("jmsQueue");
        for (int i = 0; i < queues.getLength(); i++) {
            Element q = (Element) queues.item(i);
            assertThat(q.getAttribute("jndiName")).isEqualTo("jms/queue/" + q.getAttribute("id"));
            bound.add(q.getAttribute("id"));
        }

        Map<String, String> expected = new HashMap<>();
        List<String> needed = new ArrayList<>();
        new SendMdbs().mdbsByQueue().forEach((queue, mdbs) -> {
            mdbs.forEach(mdb -> expected.put("mailroom/" + mdb, queue));
            needed.add(queue);
            needed.add("DLQ." + queue);
        });
        assertThat(destinationBySpec).isEqualTo(expected);
        assertThat(bound).containsAll(needed);
    }

    @Test
    void everyVariableTheServerReadsHasADefaultOrIsWrittenByConfigureOrIsASecret() throws Exception {
        String xml = Files.readString(SERVER_XML);
        String configure = Files.readString(Path.of("server-config/liberty/configure.sh"));
        Set<String> defined = new TreeSet<>();
        Matcher d = Pattern.compile("<variable name=\"(MAILROOM_[A-Z_]+)\"").matcher(xml + configure.replace("\\\"", "\""));
        while (d.find()) {
            defined.add(d.group(1));
        }
        Set<String> used = new TreeSet<>();
        Matcher u = Pattern.compile("\\$\\{(MAILROOM_[A-Z_]+)}").matcher(xml);
        while (u.find()) {
            used.add(u.group(1));
        }
        // and what the file configure.sh writes reads at start: there a server variable is escaped from the shell
        Matcher w = Pattern.compile("\\\\\\$\\{(MAILROOM_[A-Z_]+)}").matcher(configure);
        while (w.find()) {
            used.add(w.group(1));
        }
        used.removeAll(defined);
        // secrets have no default anywhere: the environment gives them at start (docs/liberty.md)
        assertThat(used).containsExactly("MAILROOM_BROKER_PASSWORD");
    }
}
