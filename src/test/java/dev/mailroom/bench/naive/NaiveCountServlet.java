package dev.mailroom.bench.naive;

import java.io.IOException;

import jakarta.persistence.EntityManager;
import jakarta.persistence.PersistenceContext;
import jakarta.servlet.annotation.WebServlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code GET /naive-mdb/count?prefix=<p>} answers {@code <rows> <distinct message ids>} of naive_mail whose message_id
 * starts with the prefix: how the benchmark checks the naive bean handled every message exactly once.
 */
@WebServlet("/count")
public class NaiveCountServlet extends HttpServlet {

    @PersistenceContext(unitName = "naive")
    EntityManager em;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String like = req.getParameter("prefix") + "%";
        Object[] counts = (Object[]) em.createQuery(
                        "select count(m), count(distinct m.messageId) from NaiveMail m where m.messageId like :p")
                .setParameter("p", like).getSingleResult();
        resp.setContentType("text/plain");
        resp.getWriter().print(counts[0] + " " + counts[1]);
    }
}
