import { Metric } from "effect"

/**
 * A labelled metric family: one Effect `Metric` per combination of label values, created on
 * first use and cached, so a hot caller (the HTTP observer) allocates nothing per update and a
 * use case can `Metric.update(family(a, b), 1)`. Label values must stay bounded (statuses, route
 * patterns, never ids). Metrics with the same name, description and labels are one series in
 * a registry, wherever they were created.
 */
export type Family<L extends ReadonlyArray<string>, M> = (...values: { readonly [K in keyof L]: string }) => M

const family =
  <L extends ReadonlyArray<string>, M>(labels: L, make: (attributes: Record<string, string>) => M): Family<L, M> => {
    const series = new Map<string, M>()
    return (...values) => {
      // A control character never appears in a method, route or status: keys stay unambiguous.
      const key = values.length === 1 ? values[0]! : values.join("\u0001")
      let m = series.get(key)
      if (m === undefined) {
        const attributes: Record<string, string> = {}
        labels.forEach((l, i) => (attributes[l] = values[i]!))
        m = make(attributes)
        series.set(key, m)
      }
      return m
    }
  }

/** Counters only go up: a negative increment is ignored (`incremental`). */
export const counterFamily = <const L extends ReadonlyArray<string>>(name: string, description: string, labels: L) =>
  family(labels, (attributes) => Metric.counter(name, { description, attributes, incremental: true }))

export const gaugeFamily = <const L extends ReadonlyArray<string>>(name: string, description: string, labels: L) =>
  family(labels, (attributes) => Metric.gauge(name, { description, attributes }))

export const histogramFamily = <const L extends ReadonlyArray<string>>(
  name: string,
  description: string,
  labels: L,
  boundaries: ReadonlyArray<number>,
) => family(labels, (attributes) => Metric.histogram(name, { description, attributes, boundaries }))
