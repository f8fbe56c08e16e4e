// The web UIs meshctl dashboard forwards to.
export { ADDON_DASHBOARDS, MESHD_SELECTOR, dashboardUrl, type AddonDashboard } from './dashboard-components.js';
