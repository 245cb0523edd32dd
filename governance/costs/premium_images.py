"""Premium public images: the OS license Google charges on top of the VM, by image project.

Google's public images of Red Hat Enterprise Linux, RHEL for SAP, SUSE Linux Enterprise Server,
SLES for SAP, Ubuntu Pro, Windows Server and SQL Server on Windows are premium: a VM booted from
one bills a license per hour on its own SKUs (https://cloud.google.com/compute/disks-image-pricing
#premiumimages; the Migration Center API's LicenseType names the same premium images, "Default
Google Cloud licensing plan. Licensing is charged per usage"). The price catalog has no license
prices, so a VM from one of these projects names the license as an unpriced part rather than
leave it out. A bring-your-own-license image lives in the user's own project and is not named.
"""

from __future__ import annotations

from mlgov_policies.props import as_str

# Google's public image projects whose images bill a license (gcloud compute images list)
PREMIUM_PROJECTS = {
    "rhel-cloud": "Red Hat Enterprise Linux",
    "rhel-sap-cloud": "RHEL for SAP",
    "suse-cloud": "SUSE Linux Enterprise Server",
    "suse-sap-cloud": "SLES for SAP",
    "ubuntu-os-pro-cloud": "Ubuntu Pro",
    "windows-cloud": "Windows Server",
    "windows-sql-cloud": "SQL Server on Windows Server",
}
PAGE = "https://cloud.google.com/compute/disks-image-pricing#premiumimages"


def image_project(image: object) -> str:
    """The project an image reference names: `projects/P/global/images/x`, `P/family` or a URL."""
    text = as_str(image) or ""
    parts = [p for p in text.split("/") if p]
    if "projects" in parts[:-1]:
        return parts[parts.index("projects") + 1]
    return parts[0] if len(parts) == 2 else ""


def premium_license(image: object) -> str:
    """Why a VM booted from `image` bills a license the catalog cannot price ("" when none)."""
    project = image_project(image)
    product = PREMIUM_PROJECTS.get(project)
    if product is None:
        return ""
    return (
        f"{product} image ({project}): a premium image bills a license per hour on top of the "
        f"VM ({PAGE}), and the price catalog has no license prices"
    )
