// The landing page lives with its kind (tbkit/plugins/timeseries/static/timeseries.js); the
// shell loads it by this name.
export { downloadAllLink, mount, tagEntries } from "./plugins/timeseries/timeseries.js";
