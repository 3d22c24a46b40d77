package org.tripartite.selection;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Sorted arrays of scores, as the histogram's updates take them. */
final class Sorted {
    private Sorted() {
    }

    /** The scores, sorted ascending (none for null). */
    static double[] of(List<Double> scores) {
        if (scores == null) {
            return new double[0];
        }
        double[] out = scores.stream().mapToDouble(Double::doubleValue).toArray();
        Arrays.sort(out);
        return out;
    }

    /** Two sorted arrays as one. */
    static double[] merge(double[] a, double[] b) {
        double[] out = new double[a.length + b.length];
        int i = 0, j = 0, k = 0;
        while (i < a.length || j < b.length) {
            out[k++] = j == b.length || i < a.length && a[i] <= b[j] ? a[i++] : b[j++];
        }
        return out;
    }

    /** The scores by their bin (each bin's in the given order). */
    static Map<Long, List<Double>> byBin(List<Double> scores) {
        Map<Long, List<Double>> by = new HashMap<>();
        for (double w : scores) {
            by.computeIfAbsent(Bin.key(w), key -> new ArrayList<>()).add(w);
        }
        return by;
    }
}
