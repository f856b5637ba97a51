# Removes the Burrow task and program. Data (ProgramData\Burrow) stays unless -Purge is given.
#Requires -RunAsAdministrator
param([switch]$Purge, [string]$InstallDir = (Join-Path $env:ProgramFiles 'Burrow'))
$ErrorActionPreference = 'Stop'
if (Get-ScheduledTask -TaskName 'Burrow' -ErrorAction SilentlyContinue) {
  Stop-ScheduledTask -TaskName 'Burrow' -ErrorAction SilentlyContinue
  Unregister-ScheduledTask -TaskName 'Burrow' -Confirm:$false
}
Remove-NetFirewallRule -DisplayName 'Burrow' -ErrorAction SilentlyContinue
Remove-Item -Recurse -Force $InstallDir -ErrorAction SilentlyContinue
if ($Purge) {
  Remove-Item -Recurse -Force (Join-Path $env:ProgramData 'Burrow\Config'), (Join-Path $env:ProgramData 'Burrow\Cache') -ErrorAction SilentlyContinue
}
Write-Host 'Burrow is uninstalled.'
